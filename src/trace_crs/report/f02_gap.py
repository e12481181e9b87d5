"""Figure 2: the Three-Competency Gap on the open-set projection (CGS vs open-set R@1).

One point per baseline from the open-set runs, coloured by family; the paper's printed
open-set R@1 (Table 6) and the two open-set CGS values its prose gives (Finding 2b) sit
beside ours, on the page (:func:`printed`) and in the figure (hollow markers, with an arrow to
our point, where the paper gives both coordinates).  The notebook writes it to ``tables/f02_gap.csv`` and ``figures/f02_gap.png|svg``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results

NAME = "f02_gap"  # notebook, module, table CSV and figure stem
PRINTED_CGS = {
    "dense": ("§6.2 Finding 2b", "Dense open-set CGS"),
    "mrs": ("§6.2 Finding 2b", "Multi-Review Synthesis open-set CGS (closed 0.008)"),
}


def load(results_dir: str | Path, open_runs: Sequence[str] = ("open", "open_llm")) -> pd.DataFrame:
    """Per baseline: open-set R@1 and CGS (ours and printed)."""
    ours = results.metric_table(results.load_aggregates(results_dir, open_runs))
    t6 = paper.table("table6_per_axis")
    printed_r1 = dict(zip((compare.key_of(t) for t in t6["Baseline"]), paper.numeric(t6["R@1_open"]), strict=False))
    known = [k for k in ours.index if k in compare.BASELINES]
    frame = pd.DataFrame(
        {
            "Baseline": [compare.label(k) for k in known],
            "baseline": known,
            "family": [compare.family(k) for k in known],
            "r1_open": ours.loc[known, "recall@1"].astype(float).to_numpy(),
            "cgs_open": ours.loc[known, "cgs"].astype(float).to_numpy(),
            "paper_r1_open": [printed_r1.get(k, float("nan")) for k in known],
            "paper_cgs_open": [
                float(paper.claim(*PRINTED_CGS[k])) if k in PRINTED_CGS else float("nan") for k in known
            ],
            "run": ours.loc[known, "run"].to_numpy(),
            "n_turns": ours.loc[known, "n_turns"].to_numpy(),
        }
    )
    return frame


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """CGS vs R@1 on the open set, one marker per family, labelled points."""
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for fam, part in df.groupby("family", sort=True):
        ax.scatter(part["r1_open"], part["cgs_open"], label=fam.replace("_", "-").upper(), s=30)
    ax.set(
        xlabel="open-set Recall@1 (accuracy)",
        ylabel="open-set CGS (grounding)",
        title="Figure 2: open-set projection, this run",
    )
    printed = df.dropna(subset=["paper_r1_open", "paper_cgs_open"])  # the paper gives both for these only
    if not printed.empty:
        ax.scatter(
            printed["paper_r1_open"], printed["paper_cgs_open"], facecolors="none", edgecolors="k", s=50, label="paper"
        )
        for _, r in printed.iterrows():
            ax.annotate(
                "",
                xy=(r["r1_open"], r["cgs_open"]),
                xytext=(r["paper_r1_open"], r["paper_cgs_open"]),
                arrowprops={"arrowstyle": "->", "color": "0.6", "lw": 0.8},
            )
    ax.legend(title="family", loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)  # off the points
    figures.label_points(ax, df["r1_open"], df["cgs_open"], df["Baseline"])
    return figures.save(fig, NAME, figures_dir)


def printed(df: pd.DataFrame) -> pd.DataFrame:
    """The page's paper-vs-ours table of the plotted values: per baseline the paper's open-set
    R@1 (Table 6) and CGS (Finding 2b; two baselines only), ours and the difference."""
    return pd.DataFrame(
        {
            "Baseline": df["Baseline"],
            "R@1 open (paper)": df["paper_r1_open"],
            "R@1 open (ours)": df["r1_open"],
            "R@1 Δ": df["r1_open"] - df["paper_r1_open"],
            "CGS open (paper)": df["paper_cgs_open"],
            "CGS open (ours)": df["cgs_open"],
            "CGS Δ": df["cgs_open"] - df["paper_cgs_open"],
            "n turns": df["n_turns"],
        }
    )


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """The most accurate and the best-grounded baseline on the open set."""
    acc, grd = df.loc[df["r1_open"].idxmax()], df.loc[df["cgs_open"].idxmax()]
    return {
        "top_r1_label": str(acc["Baseline"]),
        "top_r1": float(acc["r1_open"]),
        "top_cgs_label": str(grd["Baseline"]),
        "top_cgs": float(grd["cgs_open"]),
    }
