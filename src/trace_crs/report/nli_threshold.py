"""NLI threshold sensitivity (Appendix L): entailment grounding at thresholds 0.3–0.7.

A seeded sample of ``n_dialogues`` dialogues of ``run`` (``baselines`` only) re-scored
(:mod:`.rescore`) with the ``entailment`` backend at each threshold
(``stats.sweeps.nli_threshold_sensitivity``).  Untabled in the paper (its prose gives the
change); the notebook writes ``tables/nli_threshold.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, rescore, sensitivity
from trace_crs.stats.sweeps import nli_threshold_sensitivity

NAME = "nli_threshold"  # notebook, module, table CSV and figure stem


def load(results_dir: str | Path, run: str = "closed", baselines: Sequence[str] | None = ("popularity", "tfidf"),
         n_dialogues: int | None = 50, seed: int = 42, entailment: str = "embedding") -> pd.DataFrame:
    """Tidy sweep ``baseline, setting, value, …`` with ``run, backend, n_dialogues``."""
    inputs = rescore.run_inputs(results_dir, run, baselines, n_dialogues, seed)
    backend = sensitivity.entailment_backend(entailment)
    out = nli_threshold_sensitivity(lambda t: inputs.score(entailment=backend, entail_threshold=float(t))[0])
    return out.assign(run=run, backend=backend.name, n_dialogues=len(inputs.dialogues))


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Entailment grounding per baseline across thresholds; ``figures/nli_threshold``."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for key, part in df.groupby("baseline"):
        ax.plot(part["setting"], part["value"], marker="o", label=compare.label(key))
    ax.set(xlabel="NLI threshold", ylabel="entailment grounding", title=str(df["backend"].iloc[0]))
    ax.legend(fontsize=8)
    figures.save(fig, NAME, figures_dir)
    return fig


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Largest change across thresholds, sample size, backend and the paper's printed change."""
    spread = df.groupby("baseline")["value"].agg(lambda v: v.max() - v.min())
    return {"max_change": float(spread.max()), "n_dialogues": int(df["n_dialogues"].iloc[0]),
            "backend": str(df["backend"].iloc[0]),
            "paper_change": paper.claim("App. L NLI threshold",
                                        "entailment grounding change across thresholds (absolute, within)")}
