"""Table 20 (Appendix L): per-turn standard deviations of BLEU-4, GS and CD on the closed set.

Computed by :func:`trace_crs.stats.spreads.per_turn_spread` on the per-turn scores of the closed
runs, for the baselines of the paper's Table 20 (the 13 session-isolated ones).  The paper prints
only its turn count (52,274 per baseline, ``report/paper/table20_spreads.csv``); every standard
deviation was lost in the text extraction, so the paper's side of each SD is "—".  Beside the SD
the table adds what the paper's caveat asks for: the naive standard error, the dialogue-clustered
standard error and their ratio squared (design effect).  These columns are descriptive; the
book's inferential intervals are the cluster bootstrap of Table 21.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics.registry import label as metric_label
from trace_crs.report import compare, figures, paper, results
from trace_crs.stats.spreads import CAVEAT, per_turn_spread

NAME = "t20_spreads"
PAPER = "table20_spreads"
METRICS = ("bleu4", "gs", "cd")  # the paper's BLEU-4 | Grounding | Cite. Density


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """One row per (baseline, metric): ours (``stats.spreads``) and the paper's n and SD."""
    printed = paper.table(PAPER)
    paper_n = {
        compare.key_of(b): n for b, n in zip(printed["Baseline"], paper.numeric(printed["n_turns"]), strict=False)
    }
    wanted = [k for k in paper_n if k is not None]
    turns = results.load_per_turn(results_dir, runs)
    turns = turns[turns["baseline"].isin(wanted)]
    spread = per_turn_spread(turns, METRICS, source=f"per-turn scores of {', '.join(runs)}")
    order = {k: i for i, k in enumerate(wanted)} | {m: i for i, m in enumerate(METRICS)}
    spread = spread.sort_values(["metric", "baseline"], key=lambda col: col.map(order))
    spread.insert(0, "Baseline", [compare.label(k) for k in spread["baseline"]])
    spread["paper_n_turns"] = [paper_n[k] for k in spread["baseline"]]
    spread["paper_sd"] = float("nan")  # lost in extraction (module docstring)
    spread["metric_label"] = [metric_label(m) for m in spread["metric"]]
    return spread.reset_index(drop=True)


def display(df: pd.DataFrame) -> pd.DataFrame:
    """The page's columns, in reading order (one table per metric via ``present.by``)."""
    cols = {
        "metric_label": "metric",
        "Baseline": "Baseline",
        "paper_n_turns": "n turns (paper)",
        "n_turns": "n turns",
        "n_dialogues": "n dialogues",
        "mean": "mean",
        "paper_sd": "sd (paper)",
        "sd": "sd",
        "se_naive": "se naive",
        "se_cluster": "se cluster",
        "design_effect": "design effect",
    }
    return df[list(cols)].rename(columns=cols)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Per-turn SD per baseline, one panel per metric."""
    fig, axes = plt.subplots(1, len(METRICS), figsize=(7.5, 4.2), sharey=True)
    for ax, metric in zip(axes, METRICS, strict=False):
        part = df[df["metric"] == metric]
        ax.barh(part["Baseline"], part["sd"], color="tab:blue")
        top = float(part["sd"].max()) if part["sd"].notna().any() else 0.0
        ax.set(title=metric_label(metric), xlabel="per-turn sd", xlim=(0, max(top * 1.1, 0.01)))
        ax.invert_yaxis()
    fig.suptitle("Table 20: per-turn standard deviation, closed set, this run")
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """The largest design effect and the baselines' turn counts (glued)."""
    top = df.loc[df["design_effect"].idxmax()] if df["design_effect"].notna().any() else None
    return {
        "n_baselines": int(df["baseline"].nunique()),
        "n_turns_min": int(df["n_turns"].min()),
        "n_turns_max": int(df["n_turns"].max()),
        "deff_max": float(top["design_effect"]) if top is not None else float("nan"),
        "deff_max_label": f"{top['Baseline']}, {top['metric_label']}" if top is not None else "—",
        "caveat": CAVEAT,
    }
