"""Figure 6 / Appendix O: grounding, recommendation and relevance error rates per baseline.

The per-turn score files do not carry the error flags, so ``trace-crs stats sensitivity errors``
(``stats.sensitivity.error_rates``; sample size, seed and fuzzy threshold in
``mk/sensitivity.mk``) re-reads each run's predictions and calls ``trace_crs.metrics.errors`` —
``grounding_errors``, ``recommendation_errors`` and ``relevance_errors`` — on every reference
recommend/compare turn, writing ``sensitivity/f06_error_analysis.parquet``; :func:`load` reads
it.  A rate is the mean of a flag over a baseline's turns (``metrics.errors``).  The paper
prints only some rates in the Appendix O prose (``headline_claims``, section "App. O (Figure
6)"); those are joined as ``paper``.  The notebook writes it to
``tables/f06_error_analysis.csv`` in the long
reported-vs-reproduced format.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, sensitivity
from trace_crs.stats.sensitivity import ERROR_KINDS

NAME = "f06_error_analysis"  # notebook, module, table CSV and figure stem
KINDS = {kind: f"{kind} error" for kind in ERROR_KINDS}  # column -> legend label
SECTION = "App. O (Figure 6)"
# (baseline key, kind) -> claim text in headline_claims (the rates the prose prints).
CLAIMS = {
    ("mrs", "grounding"): "Multi-Review Synthesis grounding error rate",
    ("llm_zero_shot", "grounding"): "LLM Zero-Shot grounding error rate",
    ("dst", "grounding"): "DST grounding error rate",
    ("popularity", "recommendation"): "Popularity recommendation error rate",
    ("aspect", "recommendation"): "Aspect recommendation error rate",
    ("rag_citation", "grounding"): "RAG-Citation grounding error rate (lowest among LLM baselines)",
}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Long table ``Baseline, baseline, column, metric, paper, ours, diff, run, n_dialogues,
    n_turns`` with one row per baseline × error kind."""
    saved = sensitivity.load_saved(results_dir, NAME, runs).set_index("baseline")
    rates, meta = saved[list(KINDS)], saved[["run", "n_dialogues", "n_turns"]]
    rows = []
    for key in rates.index:
        for kind in KINDS:
            claim = CLAIMS.get((key, kind))
            printed = float(paper.claim(SECTION, claim)) if claim else float("nan")
            rows.append(
                {
                    "Baseline": compare.label(key),
                    "baseline": key,
                    "column": kind,
                    "metric": f"{kind}_error_rate",
                    "paper": printed,
                    "ours": float(rates.at[key, kind]),
                }
            )
    long = pd.DataFrame(rows)
    long["diff"] = long["ours"] - long["paper"]
    long = long.merge(meta, left_on="baseline", right_index=True, how="left")
    return long


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Grouped bars of the three error rates per baseline; crosses mark printed rates."""
    labels = list(dict.fromkeys(df["Baseline"]))
    x = np.arange(len(labels))
    width = 0.8 / len(KINDS)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 4))
    for i, (kind, name) in enumerate(KINDS.items()):
        part = df[df["column"] == kind].set_index("Baseline").reindex(labels)
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, part["ours"], width, label=f"{name} (this run)")
        ax.scatter(pos, part["paper"], marker="x", color="black", zorder=3, label="paper (printed)" if i == 0 else None)
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set(ylabel="error rate (share of turns)", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the prose: worst baseline per error kind, and family means."""
    out: dict[str, Any] = {
        "n_baselines": int(df["baseline"].nunique()),
        "n_turns": int(df["n_turns"].sum() / len(KINDS)),
    }
    for kind in KINDS:
        part = df[df["column"] == kind].set_index("baseline")["ours"]
        worst = str(part.idxmax())
        out[f"worst_{kind}_label"] = compare.label(worst)
        out[f"worst_{kind}"] = float(part.max())
        fam = part.groupby(part.index.map(compare.family)).mean()
        for family in ("non_llm", "llm"):
            out[f"mean_{kind}_{family}"] = float(fam.get(family, float("nan")))
    return out
