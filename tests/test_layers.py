"""The import-direction rule of ARCHITECTURE.md, checked on the source (not on a docstring).

Every ``trace_crs`` module may import only the packages its layer allows: layers import
downward, and ``metrics`` never imports ``baselines`` or ``runner``.  Imports inside functions
count too (a lazy import is still a dependency).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "trace_crs"
SHARED = {"config", "errors", "cache", "segment", "atomic", "results_layout", "quote_rule", "net", "prompts", "__init__",
          "__main__"}   # top-level modules (and the prompt files' package) usable by every layer
# package -> the trace_crs packages it may import (besides itself and SHARED)
ALLOWED: dict[str, set[str]] = {
    "kb": set(),
    "dialogues": {"kb"},
    "lm": {"kb", "dialogues"},
    "baselines": {"kb", "dialogues", "lm"},
    "metrics": {"kb", "dialogues", "lm"},
    "judge": {"kb", "dialogues", "lm", "metrics", "stats"},
    "runner": {"kb", "dialogues", "lm", "baselines", "metrics"},
    "live": {"kb", "dialogues", "lm", "baselines", "metrics", "runner", "judge"},   # the live loop; writes judge transcripts
    "stats": {"kb", "dialogues", "lm", "metrics"},
    "human": {"kb", "dialogues", "stats"},   # the annotation study kit (paper App. K): labels, agreement, validation
    "oracle": {"kb", "dialogues", "lm", "metrics", "stats"},
    "release": {"kb", "dialogues"},   # the paper's release layout: import / export (paper §2.1)
    "report": {"kb", "dialogues", "lm", "baselines", "metrics", "runner", "stats", "oracle", "judge", "live", "human"},
    "cli": {"kb", "dialogues", "lm", "baselines", "metrics", "runner", "stats", "oracle", "report", "judge", "live",
            "release", "human"},
    "api": {"kb", "dialogues", "metrics", "runner"},   # the Python API, beside the CLI at the top
}


def imported_packages(path: Path) -> set[str]:
    """First component under ``trace_crs`` of every import in ``path``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if node.module == "trace_crs"
                                     and ((SRC / a.name).is_dir() or (SRC / f"{a.name}.py").is_file())]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "trace_crs" and len(parts) > 1:
                found.add(parts[1])
    return found


def package_of(path: Path) -> str:
    rel = path.relative_to(SRC).parts
    return rel[0] if len(rel) > 1 else Path(rel[0]).stem


MODULES = sorted(SRC.rglob("*.py"))


def test_every_package_has_a_layer():
    packages = {package_of(p) for p in MODULES} - SHARED
    assert packages <= set(ALLOWED), f"add {sorted(packages - set(ALLOWED))} to ALLOWED (and ARCHITECTURE.md)"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_downward(path):
    package = package_of(path)
    if package in SHARED:
        allowed = {"config", "errors", "kb"} if package == "cache" else {"config", "errors"}
        allowed |= {"segment"} if package == "quote_rule" else set()  # the quote rule splits sentences
        if package in {"__init__", "__main__"}:
            return  # the package root re-exports the public API
    else:
        allowed = ALLOWED[package] | SHARED | {package}
    bad = imported_packages(path) - allowed
    assert not bad, f"{path.relative_to(SRC)} ({package}) imports {sorted(bad)}"


def test_detector_sees_lazy_and_from_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from trace_crs.kb import KB\ndef g():\n    import trace_crs.baselines.base\n"
                 "from trace_crs import metrics\n")
    assert imported_packages(f) == {"kb", "baselines", "metrics"}
