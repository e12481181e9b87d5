"""Tables 23–24: R@1 by difficulty tier, and R@1/R@3/GS at candidate pools of 8, 16, 32.

``load(results_dir, part="pool")``: pool 8 is the ``closed`` run, 16 and 32 the ``pool16`` /
``pool32`` runs, restricted to the baselines of the pool-16 run (Table 24).
``load(results_dir, part="difficulty")``: per-turn R@1 of the closed runs averaged within
each generation-time difficulty tier (Table 23; turn metrics are means over turns, §5).
Writes ``tables/table24_pool_size.csv`` or ``tables/table23_difficulty.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, results

POOL, DIFFICULTY = "table24_pool_size", "table23_difficulty"
NAMES = {"pool": POOL, "difficulty": DIFFICULTY}  # every table CSV this module writes
TIERS = ("easy", "medium", "hard", "expert")
POOL_METRICS = {"R@1": "recall@1", "R@3": "recall@3", "GS": "gs"}


def load(results_dir: str | Path, part: str = "pool",
         pool_runs: Sequence[tuple[int, str]] = ((8, "closed"), (16, "pool16"), (32, "pool32")),
         runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 24 (``part="pool"``) or 23 (``part="difficulty"``)."""
    loaders = {"pool": lambda: _pool(results_dir, pool_runs),
               "difficulty": lambda: _difficulty(results_dir, runs)}
    if part not in loaders:
        raise ValueError(f"part must be one of {sorted(loaders)}, got {part!r}")
    return loaders[part]()


def _pool(results_dir: str | Path, pool_runs: Sequence[tuple[int, str]]) -> pd.DataFrame:
    tables = [(size, results.metric_table(results.load_aggregates(results_dir, run)))
              for size, run in pool_runs]
    keep = tables[1][1].index if len(tables) > 1 else tables[0][1].index
    ours = pd.concat([t[list(POOL_METRICS.values())].add_suffix(f"_{size}")
                      for size, t in tables], axis=1).reindex(keep)
    ours["run"] = "+".join(run for _, run in pool_runs)
    columns = {f"{col}_{size}": f"{metric}_{size}" for col, metric in POOL_METRICS.items()
               for size, _ in pool_runs}
    return compare.publish(results_dir, POOL, ours, columns)


def _difficulty(results_dir: str | Path, runs: Sequence[str]) -> pd.DataFrame:
    turns = results.load_per_turn(results_dir, runs)
    ours = turns.pivot_table(index="baseline", columns="difficulty", values="recall@1",
                             aggfunc="mean").add_prefix("recall@1_")
    ours["n_turns"] = turns.groupby("baseline").size()
    columns = {f"{tier.capitalize()}_R@1": f"recall@1_{tier}" for tier in TIERS}
    return compare.publish(results_dir, DIFFICULTY, ours, columns)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/table24_pool_size`` or ``table23_difficulty``."""
    name = POOL if df["column"].iloc[0].startswith("R@1_") else DIFFICULTY
    fig = compare.plot(df, f"{name}: this run vs paper")
    figures.save(fig, name, figures_dir)
    return fig


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose: mean R@1 change from the first to last column."""
    r1 = df[df["column"].str.contains("R@1")]
    first, last = r1["column"].iloc[0], r1["column"].iloc[-1]
    mean = r1.groupby("column")["ours"].mean()
    return {"first": first, "last": last, "mean_first": float(mean[first]),
            "mean_last": float(mean[last]), "mean_drop": float(mean[first] - mean[last])}
