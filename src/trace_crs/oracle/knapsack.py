"""Budget and quality oracles (HotelQuEST §4 "Oracle models"; Sinha & Zoltners 1979).

Quality oracle: per dialogue, the baselines with the top quality — qualities within
``1e-9·max(1, |top|)`` of the row maximum count as equal (float noise of means) — and among
them the cheapest, then the first in sorted baseline order.

Budget oracle: the multiple-choice knapsack ``max Σ_i q_i,x(i)  s.t.  Σ_i c_i,x(i) ≤ B`` with
exactly one baseline x(i) per dialogue, solved exactly by :mod:`trace_crs.oracle.mckp`
(Pareto pruning, LP relaxation by the greedy on convex hulls, Lagrangian reduced-cost bound,
then a dynamic programme over the few dialogues whose choice is still open).  Tie-break, a
fixed total order: among feasible choices whose Σ quality is within τ = 1e-9·max(1, Σ_i max_j
|q_ij|) of the optimum (float noise), the least total cost; then the greatest Σ quality; then
the lexicographically smallest vector of baseline indices (baselines sorted by name) over the
dialogues in sorted ``dialogue_id`` order.  A budget is met when ``Σ cost ≤ B·(1 + 1e-10)``.

Budgets below Σ_i min_j c_ij are infeasible (``feasible=False``, NaN quality); budgets at or
above the quality oracle's total return the quality oracle.  Label every output with
:data:`LABEL`: these are in-sample upper bounds with perfect foresight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from trace_crs.oracle.mckp import BUDGET_RTOL, TIE_RTOL, Prepared, prepare, solve
from trace_crs.oracle.table import OracleInstance

LABEL = "in-sample upper bound with perfect foresight"


@dataclass(frozen=True)
class OracleResult:
    """Choice per dialogue (column index into ``baselines``; −1 when infeasible) and summaries."""

    kind: str
    budget: float
    feasible: bool
    choice: np.ndarray
    mean_quality: float
    total_cost: float
    solver: str

    def choices(self, inst: OracleInstance) -> pd.DataFrame:
        """Tidy choices: ``dialogue_id, baseline, quality, cost`` (empty when infeasible)."""
        if not self.feasible:
            return pd.DataFrame(columns=["dialogue_id", "baseline", "quality", "cost"])
        rows = np.arange(len(self.choice))
        return pd.DataFrame(
            {
                "dialogue_id": inst.dialogue_ids,
                "baseline": np.array(inst.baselines)[self.choice],
                "quality": inst.quality[rows, self.choice],
                "cost": inst.cost[rows, self.choice],
            }
        )

    def shares(self, inst: OracleInstance) -> pd.Series:
        """Share of dialogues routed to each baseline (all baselines listed, NaN when infeasible)."""
        if not self.feasible:
            return pd.Series(np.nan, index=list(inst.baselines), name="share")
        counts = np.bincount(self.choice, minlength=len(inst.baselines))
        return pd.Series(counts / len(self.choice), index=list(inst.baselines), name="share")


def _result(kind: str, inst: OracleInstance, budget: float, choice: np.ndarray | None, solver: str) -> OracleResult:
    if choice is None:
        return OracleResult(kind, float(budget), False, np.full(len(inst.dialogue_ids), -1), np.nan, np.nan, solver)
    rows = np.arange(len(choice))
    return OracleResult(
        kind,
        float(budget),
        True,
        choice,
        float(inst.quality[rows, choice].mean()),
        float(inst.cost[rows, choice].sum()),
        solver,
    )


def quality_choice(quality: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Per row: top quality (within ``TIE_RTOL·max(1, |top|)``), then min cost, then lowest column."""
    best = quality.max(axis=1, keepdims=True)
    top = quality >= best - TIE_RTOL * np.maximum(1.0, np.abs(best))
    return np.where(top, cost, np.inf).argmin(axis=1)


def quality_oracle(inst: OracleInstance) -> OracleResult:
    """Per dialogue the cheapest baseline among those with the top quality."""
    return _result("quality", inst, np.nan, quality_choice(inst.quality, inst.cost), "closed form")


def budget_oracle(inst: OracleInstance, budget: float, prepared: Prepared | None = None) -> OracleResult:
    """Exact multiple-choice knapsack at total ``budget`` (see module docstring).

    ``prepared`` (from :func:`trace_crs.oracle.mckp.prepare` on the same instance) is reused
    across a budget sweep.
    """
    q, c = inst.quality, inst.cost
    if not np.isfinite(budget):
        raise ValueError(f"budget oracle: budget must be a finite number, got {budget!r}")
    rows = np.arange(q.shape[0])
    room = budget + BUDGET_RTOL * abs(budget)
    qo = quality_choice(q, c)
    if c[rows, qo].sum() <= room:
        return _result("budget", inst, budget, qo, "quality oracle fits")
    prep = prepared or prepare(q, c)
    floor_cost = c[rows, prep.base].sum()
    if floor_cost > room:
        return _result("budget", inst, budget, None, f"infeasible: budget < Σ min cost = {floor_cost:.6g}")
    choice, solver = solve(q, c, prep, budget)
    total = c[rows, choice].sum()
    if total > budget + 1e-7 * max(1.0, abs(budget)):
        raise RuntimeError(f"budget oracle: solution cost {total!r} exceeds budget {budget!r}")
    return _result("budget", inst, budget, choice, solver)
