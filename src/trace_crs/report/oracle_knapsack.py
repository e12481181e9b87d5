"""Oracle knapsack (HotelQuEST §4 "Oracle models") applied to Trace: per-dialogue routing
between baselines with perfect foresight — an in-sample upper bound, not a router.

Input table: :func:`trace_crs.oracle.quality.oracle_table` (joint quality and per-dialogue cost of
each baseline over the dialogues every chosen baseline was run and scored on — the closed-set
dialogues of the seeded LLM subset when the runs are ``closed`` + ``closed_llm``); this module
only loads the saved scores and records, lays the result out and plots it.

``load`` returns :func:`trace_crs.oracle.summary.oracle_summary` of that table: one long frame
with ``kind`` ∈ {baseline, budget, quality_oracle, elbow} (budget curve with bootstrap bands,
its elbow, the quality oracle, each baseline alone) plus ``cost_column`` and ``runs``.  The
notebook writes it to ``tables/oracle_knapsack.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs import DEFAULT_SEED
from trace_crs.oracle import LABEL, oracle_instance, quality
from trace_crs.oracle.summary import oracle_summary
from trace_crs.report import compare, figures, results

NAME = "oracle_knapsack"


def oracle_table(
    results_dir: str | Path,
    runs: Sequence[str] = ("closed", "closed_llm"),
    baselines: Sequence[str] | None = None,
    cost: str = "latency_s",
) -> pd.DataFrame:
    """``dialogue_id, baseline, quality, cost`` of the saved runs (:func:`oracle.quality.oracle_table`)."""
    frames, paths = [], []
    for run in runs:
        path = results.records_file(results_dir, run)
        rec = pd.read_parquet(path)
        frames.append(rec if baselines is None else rec[rec["baseline"].isin(list(baselines))])
        paths.append(str(path))
    return quality.oracle_table(
        results.load_per_turn(results_dir, runs, baselines),
        results.load_per_dialogue(results_dir, runs, baselines),
        pd.concat(frames, ignore_index=True),
        cost,
        source=" + ".join(paths),
    )


def load(
    results_dir: str | Path,
    runs: Sequence[str] = ("closed", "closed_llm"),
    baselines: Sequence[str] | None = None,
    cost: str = "latency_s",
    n_points: int = 20,
    n_boot: int = 200,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Budget curve, elbow, quality oracle and single-baseline points
    (:func:`trace_crs.oracle.summary.oracle_summary` of the saved runs' oracle table)."""
    inst = oracle_instance(
        oracle_table(results_dir, runs, baselines, cost), source=f"oracle table ({', '.join(runs)}; cost {cost})"
    )
    return oracle_summary(inst, n_points, n_boot, seed, meta={"cost_column": cost, "runs": "+".join(runs)})


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Budget curve with band and elbow; choice histogram; cost–quality Pareto plot."""
    curve, single = df[df["kind"] == "budget"], df[df["kind"] == "baseline"]
    qo, knee = df[df["kind"] == "quality_oracle"].iloc[0], df[df["kind"] == "elbow"]
    n = float(df["n_dialogues"].iloc[0])
    fig, (a, b, c) = plt.subplots(3, 1, figsize=(7.5, 11))  # stacked: each panel the full column width
    a.plot(curve["budget"] / n, curve["mean_quality"], marker=".", label="budget oracle")
    if "ci_low" in curve and curve["ci_low"].notna().any():
        a.fill_between(curve["budget"] / n, curve["ci_low"], curve["ci_high"], alpha=0.2, label="95% bootstrap band")
    a.axhline(qo["mean_quality"], color="grey", ls="--", lw=0.8, label="quality oracle")
    if len(knee):
        a.scatter(knee["budget"] / n, knee["mean_quality"], color="red", zorder=3, label="elbow")
    a.set(
        xlabel=f"budget per dialogue ({df['cost_column'].iloc[0]})", ylabel="mean joint quality", title="Budget curve"
    )
    a.legend(fontsize=7)
    share_cols = [col for col in df.columns if col.startswith("share:")]
    picks = {"quality oracle": qo[share_cols]}
    if len(knee):
        picks["elbow"] = knee.iloc[0][share_cols]
    x = np.arange(len(share_cols))
    for i, (name, row) in enumerate(picks.items()):
        b.bar(x + 0.4 * i - 0.2 * (len(picks) - 1), row.astype(float), 0.4, label=name)
    b.set_xticks(x, [compare.label(col.split(":", 1)[1]) for col in share_cols], rotation=40, ha="right", fontsize=7)
    b.set(ylabel="share of dialogues", title="Oracle choices")
    b.legend(fontsize=7)
    c.scatter(single["mean_cost"], single["mean_quality"], color="black", s=14, label="single baseline")
    figures.label_points(c, single["mean_cost"], single["mean_quality"], [compare.label(b) for b in single["baseline"]])
    feasible = curve[curve["feasible"].astype(bool)]
    c.plot(feasible["mean_cost"], feasible["mean_quality"], marker=".", label="budget oracle")
    c.scatter([qo["mean_cost"]], [qo["mean_quality"]], marker="*", s=120, color="red", label="quality oracle")
    c.set(
        xlabel=f"mean cost per dialogue ({df['cost_column'].iloc[0]})",
        ylabel="mean joint quality",
        title="Cost–quality",
    )
    c.legend(fontsize=7)
    fig.suptitle(f"Oracles: {LABEL}", fontsize=9)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the prose: best single baseline, quality oracle, elbow, gain."""
    single = df[df["kind"] == "baseline"].set_index("baseline")
    qo, knee = df[df["kind"] == "quality_oracle"].iloc[0], df[df["kind"] == "elbow"]
    best = str(single["mean_quality"].idxmax())
    share_cols = [c for c in df.columns if c.startswith("share:")]
    top = qo[share_cols].astype(float).idxmax()
    return {
        "n_dialogues": int(df["n_dialogues"].iloc[0]),
        "n_baselines": int(len(single)),
        "cost_column": str(df["cost_column"].iloc[0]),
        "best_single_label": compare.label(best),
        "best_single_quality": float(single.at[best, "mean_quality"]),
        "best_single_cost": float(single.at[best, "mean_cost"]),
        "oracle_quality": float(qo["mean_quality"]),
        "oracle_cost": float(qo["mean_cost"]),
        "oracle_gain": float(qo["mean_quality"] - single.at[best, "mean_quality"]),
        "oracle_top_label": compare.label(top.split(":", 1)[1]),
        "oracle_top_share": float(qo[top]),
        "elbow_text": elbow_text(knee),
        "label": LABEL,
    }


def elbow_text(knee: pd.DataFrame) -> str:
    """The prose's elbow clause; a flat or too-short curve (:func:`trace_crs.oracle.curve.elbow`
    returns NaN) has none, and the page says so instead of printing 'nan'."""
    if not len(knee) or pd.isna(knee["mean_cost"].iloc[0]):
        return "has no elbow (fewer than three budgets, or the same quality at the smallest and largest budget)"
    cost, quality = float(knee["mean_cost"].iloc[0]), float(knee["mean_quality"].iloc[0])
    return f"has its elbow at {cost:.4g} per dialogue with quality {quality:.3f}"
