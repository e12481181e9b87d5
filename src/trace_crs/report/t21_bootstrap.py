"""Table 21: paired cluster bootstrap (by dialogue) of selected baseline differences.

Per-turn frames of ``runs`` restricted to the dialogues of ``subset_run`` (the seeded
LLM subset, so every pair is compared on the same dialogues), then
``trace_crs.stats.bootstrap.bootstrap_pairs`` with ``n_boot`` resamples and ``seed``.  Joined
with the paper's printed Δ (CI and significance were lost in extraction).  The notebook writes
it to ``tables/t21_bootstrap.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs import DEFAULT_SEED
from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results
from trace_crs.stats.bootstrap import MIN_CLUSTERS, N_BOOT, TABLE21_PAIRS, bootstrap_pairs

NAME = "t21_bootstrap"  # notebook, module, table CSV and figure stem
PAPER = "table21_bootstrap_pairs"  # the printed table it is compared with (report/paper/)
METRICS = metric_registry.columns(("recall@1", "mrr", "cgs", "gs", "cd"))  # label -> metric key


def _printed() -> dict[tuple[str | None, str | None, str], float]:
    """Paper Δ keyed by (a, b, metric key)."""
    table = paper.table(PAPER)
    out = {}
    for pair, metric, delta in zip(table["A vs B"], table["Metric"], paper.numeric(table["Delta"]), strict=False):
        a, b = (compare.key_of(x) for x in pair.split(" vs. "))
        out[(a, b, METRICS[metric])] = float(delta)
    return out


def load(
    results_dir: str | Path,
    runs: Sequence[str] = ("closed", "closed_llm"),
    subset_run: str = "closed_llm",
    pairs: Sequence[Sequence[str]] | None = None,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Bootstrap Δ with 95 % CI and p-value beside the printed Δ."""
    turns = results.load_per_turn(results_dir, runs)
    subset = set(results.load_per_turn(results_dir, subset_run)["dialogue_id"])
    chosen = cast("list[tuple[str, str, str]]", [tuple(p) for p in pairs]) if pairs is not None else list(TABLE21_PAIRS)
    ours = bootstrap_pairs(turns[turns["dialogue_id"].isin(subset)], chosen, n_boot=n_boot, seed=seed)
    printed = _printed()
    ours.insert(
        0, "pair", [f"{compare.label(a)} vs. {compare.label(b)}" for a, b in zip(ours["a"], ours["b"], strict=False)]
    )
    ours["paper"] = [printed.get(k, float("nan")) for k in zip(ours["a"], ours["b"], ours["metric"], strict=False)]
    ours = ours.rename(columns={"delta": "ours"})
    ours["diff"] = ours["ours"] - ours["paper"]
    return ours


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Forest plot: our Δ with its CI (bars) and the printed Δ (crosses)."""
    labels = [f"{p} ({m})" for p, m in zip(df["pair"], df["metric"], strict=False)]
    y = range(len(df))
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(df) + 1))
    ax.errorbar(
        df["ours"], y, xerr=[df["ours"] - df["ci_low"], df["ci_high"] - df["ours"]], fmt="o", label="this run (95% CI)"
    )
    ax.scatter(df["paper"], y, marker="x", color="black", label="paper (printed)")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.set(xlabel="Δ = A − B")
    ax.legend(fontsize=8)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Counts quoted in the prose."""
    return {
        "n_pairs": int(len(df)),
        "n_significant": int(df["significant"].sum()),
        "n_insufficient": int((df["verdict"] == "insufficient n").sum()),
        "min_clusters": MIN_CLUSTERS,
        "n_dialogues": int(df["n_dialogues"].max()),
        "B": int(df["n_boot"].iloc[0]),
    }
