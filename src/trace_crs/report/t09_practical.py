"""Table 9: practical value — spatial coherence, price alignment, itinerary diversity, GS.

Dialogue-level metrics from ``per_dialogue`` aggregates of the closed runs.  The notebook writes
it to ``tables/t09_practical.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results

NAME = "t09_practical"  # notebook, module, table CSV and figure stem
PAPER = "table9_practical"  # the printed table it is compared with (report/paper/)
COLUMNS = metric_registry.columns(  # printed column -> metric key
    ("spatial_coherence", "price_alignment", "itinerary_diversity", "gs"), paper.header(PAPER)
)


def load(
    results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm"), baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """Reported vs reproduced Table 9."""
    ours = results.metric_table(results.load_aggregates(results_dir, runs, baselines))
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed for every Table 9 cell; saved as ``figures/t09_practical``."""
    return figures.save(compare.plot(df, "Table 9: this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose (glued)."""
    sc = df[(df["column"] == metric_registry.label("spatial_coherence")) & df["ours"].notna()]
    best = sc.loc[sc["ours"].idxmax()]
    return {
        "best_spatial_label": str(best["Baseline"]),
        "best_spatial": float(best["ours"]),
        "itinerary_spatial_paper": float(sc.loc[sc["baseline"] == "itinerary", "paper"].max()),
    }
