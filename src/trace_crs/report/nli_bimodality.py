"""NLI bimodality check (Appendix L): are claim entailment probabilities far from the threshold?

Per claim sentence of a seeded sample (as :mod:`.nli_threshold`), the backend's max
p(review ⊨ claim) over the turn's cited reviews (``stats.rescore.RunInputs.claim_probabilities``),
summarised per baseline as shares below 0.3 / between / above 0.7 and Sarle's bimodality
coefficient (``stats.sweeps.bimodality``) by ``trace-crs stats sensitivity bimodality`` into
``sensitivity/nli_bimodality.parquet``, read here.  Shown on the NLI threshold page; the
notebook writes ``tables/nli_bimodality.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, sensitivity

NAME = "nli_bimodality"  # module, table CSV and figure stem


def load(results_dir: str | Path, run: str = "closed") -> pd.DataFrame:
    """Per baseline: ``n_claims, share_low, share_borderline, share_high, sarle_b, …``."""
    return sensitivity.load_saved(results_dir, NAME, [run])


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Stacked shares of low / borderline / high claims; ``figures/nli_bimodality``."""
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    bottom = np.zeros(len(df))
    for col in ("share_low", "share_borderline", "share_high"):
        ax.bar(df["baseline"].map(compare.label), df[col], bottom=bottom, label=col.removeprefix("share_"))
        bottom += df[col].to_numpy(float)
    ax.set(ylabel="share of claims", title="claim probability: < 0.3 / 0.3–0.7 / ≥ 0.7")
    ax.legend(fontsize=8)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Claims scored, the largest borderline share and the mean Sarle coefficient."""
    return {
        "n_claims": int(df["n_claims"].sum()),
        "max_borderline": float(df["share_borderline"].max()),
        "mean_sarle_b": float(df["sarle_b"].mean()),
    }
