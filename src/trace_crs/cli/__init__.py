"""The ``trace-crs`` command line: one sub-module per command group.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)`` that adds its commands
and sets ``func`` on each sub-parser; the flags several commands share (``--kb``, ``--out``,
``--seed``, …) are declared once, in :mod:`trace_crs.cli.arguments`.  Exit codes
(:mod:`trace_crs.errors`): 0 success, 1 an internal error (traceback kept: a bug to report), 2
a usage error (bad flags or config values, a missing input path, an output that would
overwrite an input), 3 bad data (an input file that breaks its contract; the message names
file, line and field).  Errors are one line on stderr; ``trace-crs … | head`` ends quietly.
Global flags, before the command: ``--quiet`` (no progress bars or summaries on stderr;
warnings and errors stay) and ``--json`` (the command's summary as one JSON object on
stdout, for scripts: ``score``, ``evaluate``, ``dialogues stats|validate|leakage``, ``kb stats``).

Before any command runs (:mod:`trace_crs.cli.guard`), :func:`guard_paths` refuses (exit 2) an
output flag that is, contains or lies inside an input flag
(:func:`trace_crs.atomic.refuse_overlap`) or another output of the command (the files it writes
beside ``--out`` included, :mod:`trace_crs.cli.io_paths`), and a file output that is an existing
directory; every flag of every command is classified in :data:`INPUT_FLAGS`,
:data:`OUTPUT_FLAGS`, :data:`OTHER_FLAGS` or :data:`~trace_crs.cli.io_paths.RUN_NAME_FLAGS` (a
run's name under ``--results``, guarded as that run and the KB and dialogues its config names;
a test keeps the classification complete).
Operating-system errors (permission, read-only file system, a parent that is a file, a
directory where a file is expected, disk full) are usage errors: exit 2 with the path and
the reason, no traceback.  Messages are cut to :data:`MAX_MESSAGE` characters.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import re
import sys
from typing import Any

from trace_crs import __version__

# the shared flags live in trace_crs.cli.arguments; the helpers scripts import are re-exported here
from trace_crs.cli.arguments import add_config as add_config
from trace_crs.cli.arguments import add_n_boot as add_n_boot
from trace_crs.cli.arguments import add_run_arguments as add_run_arguments
from trace_crs.cli.arguments import add_seed as add_seed

# the pre-command checks live in trace_crs.cli.guard; its tables are re-exported here
from trace_crs.cli.guard import COUNT_BOUNDS as COUNT_BOUNDS
from trace_crs.cli.guard import DIR_OUTPUTS as DIR_OUTPUTS
from trace_crs.cli.guard import INPUT_FLAGS as INPUT_FLAGS
from trace_crs.cli.guard import OTHER_FLAGS as OTHER_FLAGS
from trace_crs.cli.guard import OUTPUT_FLAGS as OUTPUT_FLAGS
from trace_crs.cli.guard import check_counts, guard_paths
from trace_crs.cli.guard import command_of as command_of
from trace_crs.errors import TraceError

COMMAND_MODULES = ("kb", "dialogues", "evaluate", "score", "lm", "stats", "converse", "judge", "release", "human")
MAX_MESSAGE = 2000  # a hostile input must not produce a megabyte error line


def given_flags(cls: type, args: argparse.Namespace) -> dict[str, Any]:
    """The flags of ``args`` that name a field of the config dataclass ``cls`` and were given
    (not ``None``): the "explicit flags win" layer of ``evaluate``, ``converse`` and ``score``."""
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name, None) is not None}


def needed_modules(argv: list[str]) -> tuple[str, ...]:
    """The command modules parsing ``argv`` needs: the one its first word after the global flags
    (which take no value) names; none for ``--version`` alone; all of them otherwise (help, a typo:
    the error lists every command).  Importing every module costs each call about a CPU-second."""
    word = next((a for a in argv if not a.startswith("-")), None)
    if word in COMMAND_MODULES:
        return (word,)
    return () if word is None and "--version" in argv else COMMAND_MODULES


def build_parser(modules: tuple[str, ...] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The command line with the commands of ``modules`` (all by default)."""
    parser = argparse.ArgumentParser(prog="trace-crs", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"trace-crs {__version__}")
    parser.add_argument(
        "--quiet",
        dest="global_quiet",
        action="store_true",
        help="no progress bars or summaries on stderr (warnings and errors stay)",
    )
    parser.add_argument(
        "--json",
        dest="global_json",
        action="store_true",
        help="print the command's summary as one JSON object on stdout",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in modules:
        importlib.import_module(f"trace_crs.cli.{name}").register(sub)
    return parser


def add_group(subparsers: Any, name: str, help: str) -> Any:
    """A command group ``trace-crs <name> <subcommand>``: its subcommand lands in
    ``args.<name>_command``, where :func:`command_of` reads it; returns the group's subparsers."""
    return subparsers.add_parser(name, help=help).add_subparsers(dest=f"{name}_command", required=True)


def os_message(exc: OSError) -> str:
    """``<path>: <reason>`` of an operating-system error (the path the OS named)."""
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    reason = exc.strerror or str(exc)
    if isinstance(exc, FileExistsError):  # mkdir of a path that is a file
        reason = "exists and is not a directory"
    return f"{' -> '.join(paths) or 'operating system'}: {reason}"


def _fail(message: object, code: int) -> int:
    text = re.sub(r"\s*\n\s*", " ", str(message))  # one line (a YAML parser's message spans several)
    if len(text) > MAX_MESSAGE:
        text = text[:MAX_MESSAGE] + f" … [{len(text) - MAX_MESSAGE} more characters]"
    print(f"trace-crs: error: {text}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(needed_modules(argv)).parse_args(argv)  # usage errors: argparse exits with 2
    if args.global_quiet:
        os.environ["TQDM_DISABLE"] = "1"
        if hasattr(args, "quiet"):
            args.quiet = True
    try:
        from trace_crs.cli.dialogues import resolve_corpus

        resolve_corpus(args)
        check_counts(args)
        guard_paths(args)
        return int(args.func(args) or 0)
    except TraceError as exc:
        return _fail(exc, exc.exit_code)
    except BrokenPipeError:  # `trace-crs … | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except FileNotFoundError as exc:  # an input path that does not exist: a usage error
        return _fail(exc, 2)
    except OSError as exc:  # permission, read-only, not a directory, is a directory, disk full
        return _fail(os_message(exc), 2)
    except (ValueError, KeyError) as exc:  # a bad flag or config value (data errors are DataError: 3)
        return _fail(exc, 2)


if __name__ == "__main__":
    sys.exit(main())
