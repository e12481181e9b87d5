"""Cost against quality (beside CoRE App. E's token cost of the judge itself): per baseline, the model
seconds its system spends on one turn against its CoRE-Avg on live conversations.

The live run does not record wall time (its outputs are byte-identical across runs), so the cost
is the same baseline's measured model time in the replayed runs (``runs/<run>/records.parquet``,
``latency_s`` per turn: the time of the call when it was made, also when replayed from the LM
cache), the median over its turns with the number of turns.  Non-LLM rankers take milliseconds,
LLM baselines seconds: the axis is logarithmic.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures

NAME = "core_live_cost"
RUNS: tuple[str, ...] = ("closed", "closed_llm")
COLUMNS = ["baseline", "model_s_per_turn", "n_turns"]


def model_seconds(results_dir: str | Path, runs: Sequence[str] = RUNS) -> pd.DataFrame:
    """Per baseline: median ``latency_s`` per replayed turn and the turns it is over (the first
    run holding the baseline wins); empty when no run exists."""
    rows: dict[str, dict[str, float]] = {}
    for run in runs:
        path = Path(results_dir) / "runs" / run / "records.parquet"
        if not path.exists():
            continue
        rec = pd.read_parquet(path, columns=["baseline", "latency_s"])
        for name, g in rec.groupby("baseline", sort=True):
            rows.setdefault(str(name), {"model_s_per_turn": float(g["latency_s"].median()), "n_turns": len(g)})
    out = pd.DataFrame([{"baseline": b, **v} for b, v in rows.items()], columns=COLUMNS)
    return out.astype({"model_s_per_turn": float})


def table(live: pd.DataFrame, cost: pd.DataFrame) -> pd.DataFrame:
    """The live CoRE ranking (``report.core_live.load``) joined with :func:`model_seconds`."""
    keep = ["Baseline", "baseline", "n", "core_avg", "ci_low", "ci_high"]
    return live[keep].merge(cost, on="baseline", how="left")


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure | None:
    """CoRE-Avg (95% interval) against model seconds per turn; ``None`` without a point to draw."""
    shown = df[df["core_avg"].notna() & (df["model_s_per_turn"] > 0)]
    if shown.empty:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    err = [(shown["core_avg"] - shown["ci_low"]).fillna(0), (shown["ci_high"] - shown["core_avg"]).fillna(0)]
    ax.errorbar(shown["model_s_per_turn"], shown["core_avg"], yerr=err, fmt="o", capsize=3)
    for _, r in shown.iterrows():
        ax.annotate(
            f"{r['Baseline']} (n = {r['n']})",
            (r["model_s_per_turn"], r["core_avg"]),
            fontsize=9,
            xytext=(4, 4),
            textcoords="offset points",
        )
    ax.set_xscale("log")
    ax.set_ylim(0, 4)
    ax.set_xlabel("model seconds per turn (median over the replayed run's turns, log scale)", fontsize=9)
    ax.set_ylabel("CoRE-Avg on live conversations (0-4)", fontsize=9)
    fig.tight_layout()
    return figures.save(fig, NAME, figures_dir)
