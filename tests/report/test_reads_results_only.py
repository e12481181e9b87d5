"""The book reads ``results/`` (and shipped package data) only (issue 16 item 3).

Checked on the source of ``trace_crs.report``: no module imports a loader of ``data/`` (the KB,
the dialogue corpus, its split ids, raw JSONL) or names a ``data/`` path, except the modules
listed in :data:`READS_DATA` with the reason they need the inputs themselves.  No module writes a
table CSV as a side effect of ``load``: notebooks write them with ``results.write_table``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPORT = Path(__file__).resolve().parents[2] / "src" / "trace_crs" / "report"
DATA_LOADERS = {"load_kb", "load_dialogues", "read_split_ids", "dialogue_lines", "sha256_file"}
DATA_PATH = re.compile(r"(?<!joinpath\()(?<!joinpath\(f)['\"]data/")  # a data/ path (package data via resources is fine)
# module -> why it reads data/ (shrink this list; never grow it without a reason)
READS_DATA = {
    "t03_dataset": "Table 3 describes the KB and the corpus themselves (and their leakage audit)",
    "provenance": "hashes the KB and corpus files the runs were made from",
    "t26_test_split": "the split ids live beside the corpus (dialogues.splits/); no run writes them to results/",
    "rescore": "re-scores runs at other settings (Tables 16, 18, NLI sweep, Figure 6): needs an upstream "
               "`trace-crs` step writing the sweeps to results/ (cli/ and mk/ belong to other work)",
}
# Modules that read data/ only through one of the above (checked: they import it).
THROUGH = {"sensitivity": "rescore", "t16_fuzzy_threshold": "sensitivity", "t18_spatial_threshold": "sensitivity",
           "nli_threshold": "rescore", "nli_bimodality": "rescore", "f06_error_analysis": "rescore"}
# Modules that still write a CSV inside load: another helper owns them (issue 16 exception).
WRITES_IN_LOAD = {"t29": "owned by the judge work", "core_judge": "owned by the judge work",
                  "live_vs_replayed": "owned by the live work",
                  "compare": "publish() kept for t29 and core_judge until their notebooks write the CSV"}


def modules() -> list[Path]:
    return sorted(p for p in REPORT.glob("*.py") if p.stem != "__init__")


def imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            names |= {a.name for a in node.names} | set((node.module or "").split("."))
        elif isinstance(node, ast.Import):
            names |= {part for a in node.names for part in a.name.split(".")}
    return names


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_reads_results_only(path):
    names = imported_names(path)
    uses = (names & DATA_LOADERS) | set(DATA_PATH.findall(path.read_text()))
    if path.stem in READS_DATA:
        assert uses, f"{path.stem} no longer reads data/: remove it from READS_DATA"
    elif path.stem in THROUGH:
        assert not uses and THROUGH[path.stem] in names, path.stem
    else:
        assert not uses, f"report/{path.name} reads data/ ({sorted(uses)}); the book reads results/ only"


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_load_writes_no_csv(path):
    if path.stem in WRITES_IN_LOAD:
        pytest.skip(WRITES_IN_LOAD[path.stem])
    assert "write_table(" not in path.read_text() or path.stem == "results", path.name


def test_the_allow_lists_name_existing_modules():
    assert set(READS_DATA) | set(THROUGH) | set(THROUGH.values()) <= {p.stem for p in modules()}
