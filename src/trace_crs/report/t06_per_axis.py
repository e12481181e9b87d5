"""Table 6: per-axis stressors — open-set R@1, fuzzy GS, PC, entailment (NLI), recovery.

Closed-set columns come from ``closed_runs``; ``R@1_open`` from ``open_runs`` (system-level,
open-set subset); ``NLI`` is the ``entailment`` metric of ``nli_runs`` (the seeded
entailment subsets) — when ``nli_runs`` is None it is read from the closed runs, and is
NaN where entailment was not enabled.  The notebook writes it to ``tables/t06_per_axis.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results

NAME = "t06_per_axis"  # notebook, module, table CSV and figure stem
PAPER = "table6_per_axis"  # the printed table it is compared with (report/paper/)
# printed column -> metric key (the registry's labels as Table 6 prints them)
COLUMNS = {
    f"{metric_registry.label('recall@1')}_open": "recall@1_open",
    **metric_registry.columns(("gs", "pc", "entailment", "rejection_recovery"), paper.header(PAPER)),
}
HEADER = {key: col for col, key in COLUMNS.items()}  # metric key -> its Table 6 column


def load(
    results_dir: str | Path,
    closed_runs: Sequence[str] = ("closed", "closed_llm"),
    open_runs: Sequence[str] = ("open", "open_llm"),
    nli_runs: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Reported vs reproduced Table 6."""
    ours = results.metric_table(results.load_aggregates(results_dir, closed_runs))
    ours = results.with_metric(ours, results_dir, open_runs, "recall@1", "recall@1_open")
    ours = results.with_metric(ours, results_dir, nli_runs, "entailment")
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed for every Table 6 cell; saved as ``figures/t06_per_axis``."""
    return figures.save(compare.plot(df, "Table 6: this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose (glued)."""
    nli = df[(df["column"] == HEADER["entailment"]) & df["ours"].notna()]
    rec = df[(df["column"] == HEADER["rejection_recovery"]) & df["ours"].notna()]
    best = rec.loc[rec["ours"].idxmax()]
    return {
        "n_nli_baselines": int(len(nli)),
        "best_recovery_label": str(best["Baseline"]),
        "best_recovery": float(best["ours"]),
        "mean_abs_diff_gs": float(df.loc[df["column"] == HEADER["gs"], "diff"].abs().mean()),
    }
