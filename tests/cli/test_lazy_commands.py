"""``trace-crs`` imports only the command module it runs (``cli.needed_modules``), and the parser
it builds for that module accepts the command exactly as the whole parser does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trace_crs.cli import COMMAND_MODULES, build_parser, needed_modules


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["score", "--help"], ("score",)),
        (["--quiet", "--json", "stats", "bootstrap"], ("stats",)),
        (["--version"], ()),
        (["--help"], COMMAND_MODULES),
        ([], COMMAND_MODULES),
        (["nosuch"], COMMAND_MODULES),  # the error lists every command
    ],
)
def test_needed_modules(argv, expected):
    assert needed_modules(argv) == expected


def test_one_module_parses_as_the_whole_parser():
    argv = ["stats", "diagnose", "--results", "r", "--run", "closed", "--out", "o.parquet"]
    whole, one = build_parser().parse_args(argv), build_parser(needed_modules(argv)).parse_args(argv)
    assert vars(whole) == vars(one)


def test_a_command_does_not_import_the_others():
    code = (
        "import json, sys\nfrom trace_crs.cli import build_parser, needed_modules\n"
        "build_parser(needed_modules(['kb', 'stats', '--kb', 'k']))\n"
        "print(json.dumps([m.split('.')[-1] for m in sys.modules if m.startswith('trace_crs.cli.')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(out))
    assert "kb" in loaded and not loaded & (set(COMMAND_MODULES) - {"kb"})
