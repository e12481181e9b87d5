"""Budget curve of the oracle over a sweep of budgets, its elbow, and bootstrap bands.

Default sweep: ``n_points`` budgets spaced linearly from Σ_i min_j c_ij (the cheapest feasible
budget) to the quality oracle's total cost, both included.

Elbow rule (Kneedle's difference curve, Satopää et al. 2011): over the feasible points,
normalise budget and mean quality to [0, 1] by their first and last values; the elbow is the
budget with the largest vertical distance y − x above the chord y = x (first such budget on
ties); undefined (NaN) with fewer than three feasible points or a flat curve.

Bands: the curve is recomputed on dialogue-level bootstrap resamples (the indices of
:func:`trace_crs.stats.bootstrap.bootstrap_indices`) at the same total budgets; the band is the
percentile interval of mean quality over the resamples that are feasible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.oracle.knapsack import LABEL, budget_oracle, quality_choice
from trace_crs.oracle.mckp import prepare
from trace_crs.oracle.table import OracleInstance
from trace_crs.stats.bootstrap import bootstrap_indices


def default_budgets(inst: OracleInstance, n_points: int = 20) -> np.ndarray:
    """``n_points`` budgets from the cheapest feasible total to the quality oracle's total."""
    rows = np.arange(len(inst.dialogue_ids))
    low = inst.cost.min(axis=1).sum()
    high = inst.cost[rows, quality_choice(inst.quality, inst.cost)].sum()
    return np.linspace(low, high, n_points)


def budget_curve(
    inst: OracleInstance, budgets: Sequence[float] | np.ndarray | None = None, n_points: int = 20
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Solve the budget oracle at every budget.

    Returns ``(curve, shares)``: ``curve`` has ``budget, feasible, mean_quality, total_cost,
    solver, label`` per budget (sorted), ``shares`` has ``budget, baseline, share``.
    """
    grid = np.sort(np.asarray(default_budgets(inst, n_points) if budgets is None else budgets, float))
    if grid.size == 0:
        raise ValueError("budget curve: no budgets given")
    prep = prepare(inst.quality, inst.cost)
    curve: list[dict[str, Any]]
    shares: list[dict[str, Any]]
    curve, shares = [], []
    for b in grid:
        res = budget_oracle(inst, float(b), prep)
        curve.append(
            {
                "budget": float(b),
                "feasible": res.feasible,
                "mean_quality": res.mean_quality,
                "total_cost": res.total_cost,
                "solver": res.solver,
                "label": LABEL,
            }
        )
        shares.extend({"budget": float(b), "baseline": name, "share": float(v)} for name, v in res.shares(inst).items())
    return pd.DataFrame(curve), pd.DataFrame(shares)


def elbow(budgets: Sequence[float], quality: Sequence[float]) -> float:
    """Budget at the curve's elbow (Kneedle difference curve, see module docstring)."""
    x, y = np.asarray(budgets, float), np.asarray(quality, float)
    ok = ~np.isnan(y)
    x, y = x[ok], y[ok]
    if x.size < 3 or y[-1] == y[0] or x[-1] == x[0]:
        return float("nan")
    diff = (y - y[0]) / (y[-1] - y[0]) - (x - x[0]) / (x[-1] - x[0])
    return float(x[int(np.argmax(diff))])


def curve_bands(
    inst: OracleInstance, budgets: Sequence[float], n_boot: int = 200, seed: int = DEFAULT_SEED, level: float = 0.95
) -> pd.DataFrame:
    """Percentile bands of the budget-oracle mean quality over dialogue bootstrap resamples.

    Returns ``budget, ci_low, ci_high, share_feasible, n_boot, seed``.  Costs one knapsack per
    budget and resample.
    """
    grid = np.sort(np.asarray(budgets, float))
    idx = bootstrap_indices(len(inst.dialogue_ids), n_boot, seed)
    values = np.full((n_boot, grid.size), np.nan)
    for r, rows in enumerate(idx):
        sample = inst.take(rows)
        prep = prepare(sample.quality, sample.cost)
        for j, b in enumerate(grid):
            values[r, j] = budget_oracle(sample, float(b), prep).mean_quality
    out = []
    for j, b in enumerate(grid):
        col = values[:, j][~np.isnan(values[:, j])]
        lo, hi = np.quantile(col, [(1 - level) / 2, (1 + level) / 2]) if col.size else (np.nan, np.nan)
        out.append(
            {
                "budget": float(b),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "share_feasible": col.size / n_boot,
                "n_boot": n_boot,
                "seed": seed,
            }
        )
    return pd.DataFrame(out)
