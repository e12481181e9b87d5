"""The ``trace-crs`` command line: one sub-module per command group.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)`` that adds its commands
and sets ``func`` on each sub-parser.  Errors a user can fix (bad input files, bad configs)
are printed as one line and exit with status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = ("kb", "dialogues", "evaluate", "score", "lm", "stats")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-crs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"trace_crs.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, KeyError) as exc:  # user-fixable input problems
        print(f"trace-crs: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
