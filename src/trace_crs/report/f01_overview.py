"""Figure 1: the four gaps of §1 and the three competencies of §2 that answer them.

Drawn from the project's own tables, not a picture: the gaps and their mechanisms are the rows
of Table 2 (``report/paper/table2_gap_map.csv``), each competency lists the registry labels of
the metrics that measure it (:data:`COMPETENCIES`, keys of
:data:`trace_crs.metrics.registry.METRICS`), and a gap points at a competency when one of the
metrics :data:`trace_crs.report.t02_gap_map.MAP` gives for it measures that competency.
The paper's Figure 1 is an illustration whose pixels the text extraction does not carry; this
is our rendering of what its caption and §1 describe.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics.registry import METRICS
from trace_crs.report import figures, paper, t02_gap_map

NAME = "f01_overview"
# §2 "The three competencies": C1–C3 and the metric keys that measure each (§3)
COMPETENCIES: dict[str, tuple[str, ...]] = {
    # the abstract's multi-aspect preferences "such as cuisine, price, atmosphere, walking distance"
    "C1 Accuracy": ("recall@1", "recall@3", "mrr", "spatial_coherence", "price_alignment"),
    "C2 Grounding": ("gs", "cd", "pc", "cgs", "entailment"),
    "C3 Recovery": ("rejection_recovery", "t2r", "tsr"),
}


def load(results_dir: str | Path) -> pd.DataFrame:
    """One row per (gap, competency) edge: gap, mechanism, competency, the metrics that link them."""
    t02_gap_map.check()
    printed = paper.table(t02_gap_map.PAPER)
    rows = []
    for _, r in printed.iterrows():
        keys = t02_gap_map.MAP[r["Gap"]][0]
        for comp, measures in COMPETENCIES.items():
            linking = [k for k in keys if k in measures]
            if linking:
                rows.append(
                    {
                        "gap": r["Gap"],
                        "mechanism": r["Mechanism"],
                        "competency": comp,
                        "metrics": ", ".join(METRICS[k].label for k in linking),
                    }
                )
    return pd.DataFrame(rows)


def _box(ax: Any, x: float, y: float, text: str, colour: str) -> Any:
    return ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=9,
        bbox={"boxstyle": "round,pad=0.4", "fc": colour, "ec": "0.4"},
    )


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Gaps (left, with their mechanism) → competencies (right, with their metrics)."""
    gaps = list(dict.fromkeys(df["gap"]))
    mech = dict(zip(df["gap"], df["mechanism"], strict=False))
    comps = list(COMPETENCIES)
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    ax.set_axis_off()
    ax.set(xlim=(0, 1), ylim=(0, 1))
    gy = {g: 0.88 - i * (0.76 / max(1, len(gaps) - 1)) for i, g in enumerate(gaps)}
    cy = {c: 0.80 - i * (0.60 / max(1, len(comps) - 1)) for i, c in enumerate(comps)}
    left = {g: _box(ax, 0.22, gy[g], f"{g}\n" + textwrap.fill(mech[g], 34), "#fde2e1") for g in gaps}
    right = {}
    for c in comps:
        labels = textwrap.fill(", ".join(METRICS[k].label for k in COMPETENCIES[c]), 26)
        right[c] = _box(ax, 0.8, cy[c], f"{c}\n{labels}", "#dff0d8")
    for _, r in df.iterrows():  # from the right edge of the gap's box to the left edge of the competency's
        ax.annotate(
            "",
            xy=(0, 0.5),
            xycoords=right[r["competency"]],
            xytext=(1, 0.5),
            textcoords=left[r["gap"]],
            arrowprops={"arrowstyle": "->", "color": "0.35", "lw": 1, "shrinkA": 6, "shrinkB": 6},
        )
    ax.text(0.22, 0.99, "Gaps of existing evaluations (§1)", ha="center", va="top", fontsize=10, weight="bold")
    ax.text(0.8, 0.99, "Trace's three competencies (§2)", ha="center", va="top", fontsize=10, weight="bold")
    ax.set_title("Figure 1: four gaps and the three competencies that answer them")
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    return {"n_gaps": int(df["gap"].nunique()), "n_links": len(df)}
