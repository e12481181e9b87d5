"""Table 2: each gap of §1, the mechanism of §2 that addresses it and the metric of §3 that
measures it — beside where each lives in this compendium.

The paper's rows are ``report/paper/table2_gap_map.csv``.  For each row :data:`MAP` names our
metric keys (their labels come from :data:`trace_crs.metrics.registry.METRICS`), the modules that
build the mechanism and the paper artefacts that report it (their pages come from
:mod:`trace_crs.report.numbering`).  Every key, module and artefact is checked to exist, so a
renamed metric or a moved page breaks the table instead of leaving a stale row.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.metrics.registry import METRICS
from trace_crs.report import numbering, paper

NAME = "t02_gap_map"
PAPER = "table2_gap_map"
# paper Gap -> (metric keys, mechanism modules, artefacts that report it)
MAP: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "(i) Single-Metric Ranking": (
        ("recall@1", "cgs", "rejection_recovery"),
        ("trace_crs.dialogues.simulator", "trace_crs.metrics.score"),
        ("Table 5", "Table 6", "Figure 2"),
    ),
    "(ii) No Evidence Audit": (
        ("cgs", "cd", "entailment"),
        ("trace_crs.dialogues.quotes", "trace_crs.metrics.grounding", "trace_crs.metrics.entailment"),
        ("Table 5", "Table 17", "Table 22"),
    ),
    "(iii) Tourism-Blind": (
        ("spatial_coherence", "price_alignment", "pc"),
        ("trace_crs.kb.synthetic", "trace_crs.dialogues.personas", "trace_crs.metrics.practical"),
        ("Table 9", "Table 18"),
    ),
    "(iv) No Conversational Repair": (
        ("rejection_recovery", "t2r"),
        ("trace_crs.dialogues.plan", "trace_crs.metrics.dialogue"),
        ("Table 5", "Table 6"),
    ),
}


def check() -> None:
    """Every metric key, module and artefact of :data:`MAP` exists (ValueError naming the first)."""
    for gap, (keys, modules, arts) in MAP.items():
        for key in keys:
            if key not in METRICS:
                raise ValueError(f"{gap}: metric {key!r} is not in the registry")
        for mod in modules:
            if importlib.util.find_spec(mod) is None:
                raise ValueError(f"{gap}: module {mod} does not exist")
        for art in arts:
            if art not in numbering.BY_NAME:
                raise ValueError(f"{gap}: {art} is not in report.numbering")


def load(results_dir: str | Path) -> pd.DataFrame:
    """Paper rows with three columns of ours: metrics (labels), mechanism modules, reported on."""
    check()
    printed = paper.table(PAPER)
    rows = []
    for _, r in printed.iterrows():
        keys, modules, arts = MAP[r["Gap"]]
        rows.append(
            {
                **r.to_dict(),
                "Metrics here": ", ".join(METRICS[k].label for k in keys),
                "Built by": ", ".join(f"`{m.removeprefix('trace_crs.')}`" for m in modules),
                "Reported on": ", ".join(numbering.label(a) for a in arts),
            }
        )
    return pd.DataFrame(rows)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    return {"n_gaps": len(df), "n_metrics": len({k for keys, _, _ in MAP.values() for k in keys})}
