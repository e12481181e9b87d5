"""Abstention on the unsolvable set (TravelBench, seed 003: unsolvable items and the rankers' abstention).

Reads ``abstention/`` of a results directory (``trace-crs stats abstention``): the items per
reason, the rankers' confidence (best candidate score at the first request) and the τ sweep
of :func:`trace_crs.metrics.abstention.tau_sweep`.  :func:`best_f1` picks, per ranker, the τ
with the highest F1 (in-sample: an upper bound, as the sweep sees the labels); :func:`recall_by_reason`
shows which kinds of unsolvable request the ranker declines at that τ.  Missing outputs give
empty frames and a ``status`` message, not an error, so the book still builds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures
from trace_crs.stats.intervals import wilson

NAME = "travelbench_abstention"
LLM_NAME = "travelbench_abstention_llm"  # llm_rows
NAMES = {"rankers": NAME, "llm": LLM_NAME}  # every table CSV the page writes
# the abstention counts and rates shared by the rankers' sweep and the LLM rows
OUTCOME_COLUMNS = [
    "precision",
    "recall",
    "f1",
    "false_abstention_rate",
    "tp",
    "fp",
    "fn",
    "n_unsolvable",
    "n_solvable",
]
SWEEP_COLUMNS = [
    "baseline",
    "tau",
    *OUTCOME_COLUMNS,
]


def load(results_dir: str | Path) -> dict[str, pd.DataFrame]:
    """``reasons``, ``confidence`` and ``sweep`` frames (empty, with ``status`` in
    ``sweep.attrs``, when the abstention step has not run)."""
    base = Path(results_dir) / "abstention"
    files = {
        "reasons": base / "reasons.csv",
        "confidence": base / "confidence.parquet",
        "sweep": base / "tau_sweep.csv",
    }
    if not all(f.is_file() for f in files.values()):
        sweep = pd.DataFrame(columns=SWEEP_COLUMNS)
        sweep.attrs["status"] = f"No abstention outputs in {base} (make paper runs trace-crs stats abstention)."
        return {"reasons": pd.DataFrame(columns=["reason", "items"]), "confidence": pd.DataFrame(), "sweep": sweep}
    sweep = pd.read_csv(files["sweep"])
    sweep.attrs["status"] = ""
    return {
        "reasons": pd.read_csv(files["reasons"]),
        "confidence": pd.read_parquet(files["confidence"]),
        "sweep": sweep,
    }


def best_f1(sweep: pd.DataFrame) -> pd.DataFrame:
    """Per ranker, the sweep row with the highest F1 (ties: the smallest τ)."""
    if sweep.empty:
        return pd.DataFrame(columns=["ranker", *SWEEP_COLUMNS])
    rows = sweep.dropna(subset=["f1"]).sort_values(["baseline", "f1", "tau"], ascending=[True, False, True])
    best = rows.groupby("baseline", sort=True).head(1).reset_index(drop=True)
    return best.assign(ranker=best["baseline"].map(compare.label))[["ranker", *SWEEP_COLUMNS]]


def recall_by_reason(confidence: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """Share of each reason's items (and of solvable dialogues) a ranker declines at its best-F1 τ."""
    if confidence.empty or best.empty:
        return pd.DataFrame()
    tau = dict(zip(best["baseline"], best["tau"], strict=False))
    declined = confidence.assign(declined=confidence["best_score"] < confidence["baseline"].map(tau))
    table = declined.pivot_table(index="reason", columns="baseline", values="declined", aggfunc="mean")
    return table.rename(columns=compare.label)


# Wilson 95% intervals of the two rates an LLM row rests on (its n is small: a seeded subset)
LLM_INTERVALS = ["recall_ci_low", "recall_ci_high", "far_ci_low", "far_ci_high"]
LLM_COLUMNS = ["system", *OUTCOME_COLUMNS, *LLM_INTERVALS, "n_fallbacks"]


def llm_rows(results_dir: str | Path) -> pd.DataFrame:
    """LLM baselines' abstention (``abstention/llm_abstention.csv``, ``trace-crs stats
    abstention-llm``: their ``[Unsolved]`` answers, no threshold) beside the rankers' best-F1 rows;
    empty when not run.  ``recall_<reason>`` columns follow."""
    path = Path(results_dir) / "abstention" / "llm_abstention.csv"
    if not path.is_file():
        return pd.DataFrame(columns=LLM_COLUMNS)
    df = pd.read_csv(path)
    df.insert(0, "system", df.pop("baseline").map(compare.label))
    # recall = tp / (tp + fn); false-abstention rate = fp / n_solvable (metrics.abstention)
    df["recall_ci_low"], df["recall_ci_high"] = wilson(df["tp"], df["tp"] + df["fn"])
    df["far_ci_low"], df["far_ci_high"] = wilson(df["fp"], df["n_solvable"])
    return df[LLM_COLUMNS + sorted(c for c in df.columns if c.startswith("recall_") and c not in LLM_INTERVALS)]


def facts(frames: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """Numbers the page's prose quotes."""
    best = best_f1(frames["sweep"])
    out: dict[str, Any] = {
        "n_unsolvable": int(frames["reasons"]["items"].sum()) if len(frames["reasons"]) else 0,
        "n_reasons": len(frames["reasons"]),
        "status": frames["sweep"].attrs.get("status", ""),
    }
    if len(best):
        top = best.sort_values("f1", ascending=False).iloc[0]
        out.update(
            best_ranker=top["ranker"],
            best_f1=float(top["f1"]),
            best_far=float(top["false_abstention_rate"]),
            n_solvable=int(top["n_solvable"]),
        )
    return out


def plot(sweep: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Precision, recall and false-abstention rate against τ, one panel per ranker."""
    names = sorted(sweep["baseline"].unique()) if len(sweep) else []
    ncols = min(2, max(1, len(names)))  # two panels a row at most: each ≥ 3.5 in at the column width
    nrows = -(-max(1, len(names)) // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(7.5, 3.2 * nrows), squeeze=False)
    for ax in grid.flat[max(1, len(names)) :]:
        ax.set_visible(False)
    axes = grid.reshape(1, -1)
    for ax, name in zip(axes[0], names, strict=False):
        part = sweep[sweep["baseline"] == name].sort_values("tau")
        for col, label in (
            ("precision", "precision"),
            ("recall", "recall"),
            ("false_abstention_rate", "false abstention"),
        ):
            ax.plot(part["tau"], part[col], marker=".", label=label)
        ax.set(title=compare.label(name), xlabel="τ (best-candidate score)", ylim=(-0.02, 1.02))
    if names:
        axes[0][0].legend()
    if not names:
        axes[0][0].text(0.5, 0.5, "no outputs yet", ha="center", va="center")
        axes[0][0].set_axis_off()
    fig.tight_layout()
    return figures.save(fig, NAME, figures_dir)
