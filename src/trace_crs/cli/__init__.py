"""The ``trace-crs`` command line: one sub-module per command group.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)`` that adds its commands
and sets ``func`` on each sub-parser.  Exit codes (:mod:`trace_crs.errors`): 0 success, 1 an
internal error (traceback kept: a bug to report), 2 a usage error (bad flags or config values,
a missing input path, an output that would overwrite an input), 3 bad data (an input file
that breaks its contract; the message names file, line and field).  Errors are one line on
stderr; ``trace-crs … | head`` ends quietly.  Global flags, before the command:
``--quiet`` (no progress bars or summaries on stderr; warnings and errors stay) and ``--json``
(the command's summary as one JSON object on stdout, for scripts: ``score``, ``evaluate``,
``dialogues stats|validate|leakage``, ``kb stats``).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from trace_crs import __version__
from trace_crs.errors import TraceError

COMMAND_MODULES = ("kb", "dialogues", "evaluate", "score", "lm", "stats", "converse", "judge", "release")


def add_run_arguments(p: argparse.ArgumentParser, *, config: str, dialogues: str, baselines: str, seed: str) -> None:
    """The flags ``evaluate`` and ``converse`` share (``--config``/``--set``, inputs, baselines,
    pool, subset, seed); the keyword arguments are the help texts that differ."""
    from trace_crs.config import POOLS

    p.add_argument("--config", help=config)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key")
    p.add_argument("--kb", help="KB directory (pois.jsonl, reviews.jsonl)")
    p.add_argument("--dialogues", help=dialogues)
    p.add_argument("--baselines", help=f"all | non-llm | llm | comma-separated registry keys{baselines}")
    p.add_argument("--pool", choices=list(POOLS), help="candidate pool (default closed)")
    p.add_argument("--subset", type=int, help="seeded subset size (default: all dialogues)")
    p.add_argument("--seed", type=int, help=seed)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-crs", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"trace-crs {__version__}")
    parser.add_argument("--quiet", dest="global_quiet", action="store_true",
                        help="no progress bars or summaries on stderr (warnings and errors stay)")
    parser.add_argument("--json", dest="global_json", action="store_true",
                        help="print the command's summary as one JSON object on stdout")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"trace_crs.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # usage errors: argparse exits with 2
    if args.global_quiet:
        os.environ["TQDM_DISABLE"] = "1"
        if hasattr(args, "quiet"):
            args.quiet = True
    try:
        from trace_crs.cli.dialogues import resolve_corpus
        resolve_corpus(args)
        return int(args.func(args) or 0)
    except TraceError as exc:
        print(f"trace-crs: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except FileNotFoundError as exc:  # an input path that does not exist: a usage error
        print(f"trace-crs: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, KeyError) as exc:  # a bad flag or config value (data errors are DataError: 3)
        print(f"trace-crs: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `trace-crs … | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
