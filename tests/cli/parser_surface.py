"""The whole ``trace-crs`` command-line surface as text: every command's and subcommand's
``--help`` (at ``COLUMNS=100``) and every action's option strings, dest, default, type,
required, choices, nargs, const, metavar, action class and help, plus the parser defaults
(``func``).  A refactor of the argument declarations must leave this text byte-identical.

    PYTHONPATH=<old>/src python tests/cli/parser_surface.py > before.txt
    PYTHONPATH=<new>/src python tests/cli/parser_surface.py > after.txt
    cmp before.txt after.txt
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from typing import Any

COLUMNS = "100"


def _show(value: Any) -> str:
    """A stable text for an attribute: callables by module and name (not their address)."""
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    return repr(value)


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each parser with its command path, depth first in declaration order."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from walk(child, (*path, name))


def describe(parser: argparse.ArgumentParser) -> str:
    lines = [parser.format_help(), f"defaults: {sorted((k, _show(v)) for k, v in parser._defaults.items())}"]
    for a in parser._actions:
        fields = {
            "class": type(a).__name__,
            "option_strings": a.option_strings,
            "dest": a.dest,
            "default": _show(a.default),
            "type": _show(a.type),
            "required": a.required,
            "choices": list(a.choices) if a.choices is not None else None,
            "nargs": a.nargs,
            "const": _show(a.const),
            "metavar": a.metavar,
            "help": a.help,
        }
        lines.append("  " + " | ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in fields.items()))
    return "\n".join(lines)


def surface() -> str:
    """The text of the whole surface, one block per parser."""
    os.environ["COLUMNS"] = COLUMNS
    from trace_crs.cli import build_parser

    return "\n".join(f"=== trace-crs {' '.join(path)}\n{describe(p)}\n" for path, p in walk(build_parser()))


if __name__ == "__main__":
    print(surface(), end="")
