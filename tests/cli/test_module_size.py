"""The CLI's modules stay within STYLE.md's size rule (≤ 300 lines a module), and the
pre-command checks live in one place: ``trace_crs.cli`` re-exports ``trace_crs.cli.guard``'s
tables and functions (tests and scripts import them from the package), it does not copy them."""
from __future__ import annotations

from pathlib import Path

import pytest

import trace_crs.cli as cli
from trace_crs.cli import guard

CLI = Path(__file__).resolve().parents[2] / "src" / "trace_crs" / "cli"
MAX_LINES = 300  # STYLE.md: one concept per module, ≤ 300 lines


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_cli_module_within_size_rule(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.name}: {n} lines > {MAX_LINES}; split it along a command's seam"


@pytest.mark.parametrize(
    "name",
    ["INPUT_FLAGS", "OUTPUT_FLAGS", "OTHER_FLAGS", "COUNT_BOUNDS", "DIR_OUTPUTS", "check_counts", "guard_paths",
     "command_of"],
)
def test_package_reexports_the_guard_not_a_copy(name):
    assert getattr(cli, name) is getattr(guard, name)


def test_every_command_group_module_registers():
    # the split-off modules (guard, *_generate, *_agree, …) are helpers, not command groups
    import importlib
    for name in cli.COMMAND_MODULES:
        assert callable(importlib.import_module(f"trace_crs.cli.{name}").register), name
    assert set(cli.COMMAND_MODULES) <= {p.stem for p in CLI.glob("*.py")}
