"""The book reads ``results/`` (and shipped package data) only (STYLE "Book": it never runs models).

Checked on the source of ``trace_crs.report``: no module imports a loader of ``data/`` (the KB,
the dialogue corpus, its split ids, raw JSONL) or names a ``data/`` path, except the modules
listed in :data:`READS_DATA` with the reason they need the inputs themselves; no module imports
the scorer or the re-scoring layer (:data:`COMPUTES`: re-scoring is ``trace-crs stats
sensitivity``'s, written to ``results/<profile>/sensitivity/``).  No module writes a table CSV as
a side effect of ``load``: notebooks write them with ``results.write_table`` — every table a
module names in ``NAMES`` (or ``NAME``) is written by the notebook that calls its ``load``.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPORT = Path(__file__).resolve().parents[2] / "src" / "trace_crs" / "report"
DATA_LOADERS = {"load_kb", "load_dialogues", "read_split_ids", "dialogue_lines", "sha256_file"}
DATA_PATH = re.compile(
    r"(?<!joinpath\()(?<!joinpath\(f)['\"]data/"
)  # a data/ path (package data via resources is fine)
# module -> why it reads data/ (shrink this list; never grow it without a reason)
READS_DATA = {
    "t03_dataset": "Table 3 describes the KB and the corpus themselves",
    "t03_corpus": "Table 3's page audits the corpus itself (leakage, evidence shares): one entry split in two modules",
    "t01_benchmarks": "Table 1's row of ours is measured on the KB and corpus themselves (verbatim quotes, coordinates, facets)",
    "provenance": "hashes the KB and corpus files the runs were made from",
    "t26_test_split": "the split ids live beside the corpus (dialogues.splits/); no run writes them to results/",
    "build_time": "the Reproduce page states the last `lm records verify` of the committed LM records, a report kept "
    "beside them (data/lm-records/<profile>.verify.json) because results/ is not committed",
}
# Modules (and names) that load the KB or the corpus, score or re-score: never imported by report/
# outside READS_DATA.
COMPUTES = {
    "trace_crs.kb",
    "trace_crs.dialogues",
    "trace_crs.dialogues.schema",
    "trace_crs.metrics.score",
    "trace_crs.metrics.predictions",
    "trace_crs.stats.rescore",
}
COMPUTE_NAMES = {"score_predictions", "run_inputs", "RunInputs", "analyse", "index_predictions"}
TABLE_WRITERS = ("write_table(", ".to_csv(")  # how a table CSV gets written (results.write_table owns it)


def modules() -> list[Path]:
    return sorted(p for p in REPORT.glob("*.py") if p.stem != "__init__")


def imported_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names |= {a.name for a in node.names} | set((node.module or "").split("."))
        elif isinstance(node, ast.Import):
            names |= {part for a in node.names for part in a.name.split(".")}
    return names


def imported_modules(source: str) -> set[str]:
    """Dotted modules imported (``from trace_crs import kb`` counts as ``trace_crs.kb``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def computes(source: str) -> set[str]:
    return (imported_modules(source) & COMPUTES) | (imported_names(source) & COMPUTE_NAMES)


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.stem)
def test_reads_results_only(path):
    source = path.read_text()
    uses = (imported_names(source) & DATA_LOADERS) | set(DATA_PATH.findall(source))
    if path.stem in READS_DATA:
        assert uses, f"{path.stem} no longer reads data/: remove it from READS_DATA"
    else:
        assert not uses, f"report/{path.name} reads data/ ({sorted(uses)}); the book reads results/ only"
        assert not computes(source), (
            f"report/{path.name} imports {sorted(computes(source))}: scoring and "
            "re-scoring belong upstream (trace-crs stats sensitivity → results/)"
        )


@pytest.mark.parametrize(
    "line",
    [
        "from trace_crs.metrics.score import score_predictions",
        "from trace_crs import kb",
        "import trace_crs.dialogues",
        "from trace_crs.dialogues import load_dialogues",
        "from trace_crs.stats.rescore import run_inputs",
        "def f():\n    from trace_crs.stats.sensitivity import analyse",
    ],
)
def test_the_check_sees_scoring_imports(line):
    assert computes(line)


def test_the_check_allows_results_readers():
    assert not computes(
        "from trace_crs.kb.store import iter_jsonl\nfrom trace_crs.stats.sweeps import bimodality\n"
        "from trace_crs.stats.sensitivity import ERROR_KINDS"
    )


@pytest.mark.parametrize("path", [p for p in modules() if p.stem != "results"], ids=lambda p: p.stem)
def test_load_writes_no_csv(path):
    """No exceptions: a report module returns frames, its notebook writes them (``results`` holds the writer)."""
    source = path.read_text()
    assert not [w for w in TABLE_WRITERS if w in source], f"report/{path.name} writes a table CSV"


def test_the_allow_lists_name_existing_modules():
    assert set(READS_DATA) <= {p.stem for p in modules()}


NOTEBOOKS = REPORT.parents[2] / "notebooks"
# module -> why its notebook writes no table CSV named by NAME/NAMES (shrink this list)
WRITES_NO_TABLE: dict[str, str] = {}


def declared_tables() -> list[tuple[str, str, list[str]]]:
    """(notebook, module, constants naming one table) for every ``<module>.load(`` call in a
    notebook and every table name in the module's NAMES (or NAME), as book/tools/artifacts.py reads them."""
    out = []
    for nb in sorted(NOTEBOOKS.glob("*.py")):
        for mod in dict.fromkeys(re.findall(r"\b(\w+)\.load\(", nb.read_text())):
            if not (REPORT / f"{mod}.py").is_file() or mod in WRITES_NO_TABLE:
                continue
            module = importlib.import_module(f"trace_crs.report.{mod}")
            names = getattr(module, "NAMES", None) or {"": getattr(module, "NAME", "")}
            consts = {k: v for k, v in vars(module).items() if k.isupper() and isinstance(v, str)}
            out += [(nb.stem, mod, [c for c, v in consts.items() if v == name]) for name in names.values() if name]
    return out


@pytest.mark.parametrize("notebook,module,consts", declared_tables(), ids=lambda x: x if isinstance(x, str) else "")
def test_notebook_writes_every_declared_table(notebook, module, consts):
    """The other half of the contract: the page's notebook writes each table its module names."""
    writes = re.findall(r"write_table\(([^\n]*)\)", (NOTEBOOKS / f"{notebook}.py").read_text())
    assert any(
        re.search(rf"\b{module}\.({'|'.join(consts)})\b", w) for w in writes
    ), f"notebooks/{notebook}.py writes no table for {module}.{consts[0]}"


WRITES = [
    (nb.stem, call)
    for nb in sorted(NOTEBOOKS.glob("*.py"))
    for call in re.findall(r"write_table\(([^\n]*)\)", nb.read_text())
]


@pytest.mark.parametrize("notebook,call", WRITES, ids=[f"{nb}:{c.rsplit(',', 1)[-1].strip()}" for nb, c in WRITES])
def test_every_written_table_is_declared(notebook, call):
    """The reverse half, which keeps ARCHITECTURE's artifact map complete: each table a notebook
    writes is named by a report module's constant listed in that module's NAMES (or its NAME),
    never by a string literal the map cannot see."""
    found = re.search(r",\s*(?:report\.)?(\w+)\.([A-Z][A-Z0-9_]*)\s*$", call)
    assert found, f"notebooks/{notebook}.py: write_table({call}) names its table by no module constant"
    module = importlib.import_module(f"trace_crs.report.{found[1]}")
    names = getattr(module, "NAMES", None) or {"": getattr(module, "NAME", "")}
    assert getattr(module, found[2]) in names.values(), f"{found[1]}.{found[2]} is not in {found[1]}.NAMES"


def test_the_table_check_sees_the_moved_writes():
    found = {(m, c[0]) for _, m, c in declared_tables()}
    assert {("t29", "CI_NAME"), ("t29", "COST_NAME"), ("core_judge", "T28"), ("live_vs_replayed", "NAME")} <= found
    assert set(WRITES_NO_TABLE) <= {p.stem for p in modules()}
