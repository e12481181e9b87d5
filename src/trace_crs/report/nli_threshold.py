"""NLI threshold sensitivity (Appendix L): entailment grounding at thresholds 0.3–0.7.

A seeded sample of dialogues of ``run`` re-scored with an entailment backend at each threshold
(``stats.sweeps.nli_threshold_sensitivity``) by ``trace-crs stats sensitivity nli`` (sample,
seed, baselines and backend in ``mk/sensitivity.mk``) into ``sensitivity/nli_threshold.parquet``,
read here.  Untabled in the paper (its prose gives the change); the notebook writes
``tables/nli_threshold.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, sensitivity

NAME = "nli_threshold"  # notebook, module, table CSV and figure stem


def load(results_dir: str | Path, run: str = "closed") -> pd.DataFrame:
    """Tidy sweep ``baseline, setting, value, …`` with ``run, backend, n_dialogues``."""
    return sensitivity.load_saved(results_dir, NAME, [run])


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Entailment grounding per baseline across thresholds; ``figures/nli_threshold``."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for key, part in df.groupby("baseline"):
        ax.plot(part["setting"], part["value"], marker="o", label=compare.label(key))
    ax.set(xlabel="NLI threshold", ylabel="entailment grounding", title=str(df["backend"].iloc[0]))
    ax.legend(fontsize=8)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Largest change across thresholds, sample size, backend and the paper's printed change."""
    spread = df.groupby("baseline")["value"].agg(lambda v: v.max() - v.min())
    return {
        "max_change": float(spread.max()),
        "n_dialogues": int(df["n_dialogues"].iloc[0]),
        "backend": str(df["backend"].iloc[0]),
        "paper_change": paper.claim(
            "App. L NLI threshold", "entailment grounding change across thresholds (absolute, within)"
        ),
    }
