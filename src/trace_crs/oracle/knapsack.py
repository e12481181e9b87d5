"""Budget and quality oracles (HotelQuEST §4 "Oracle models", Sinha & Zoltners 1979).

Quality oracle: per dialogue, the baselines with the highest quality, and among them the
cheapest (then the first in sorted baseline order).

Budget oracle: the multiple-choice knapsack ``max Σ_i q_i,x(i)  s.t.  Σ_i c_i,x(i) ≤ B``
with exactly one baseline x(i) per dialogue, solved exactly; among quality-optimal choices the
cheapest total is returned.  Algorithm (exact, every step is a proof-preserving reduction):

1. Per dialogue keep the Pareto options (cheapest per quality level; ties → first baseline):
   any solution using a dominated option is matched by one at least as good and as cheap.
2. Upper convex hull of each dialogue's Pareto options; the LP relaxation is solved by taking
   hull upgrades in order of decreasing slope Δq/Δc (Dyer/Zemel greedy).  The first upgrade
   that does not fit gives the multiplier λ and the LP bound U; the taken prefix, improved by
   single-dialogue upgrades into the left-over budget, is a feasible incumbent L.
3. Reduced-cost fixing: for any feasible x, Σ q ≤ U + Σ_i r_i,x(i) with
   r_ij = (q_ij − λ c_ij) − max_j' (q_ij' − λ c_ij') ≤ 0 (Lagrangian duality), so an option
   with r_ij < L − U cannot reach the incumbent and is removed.
4. If every quality is a multiple of a quantum δ = 1/D (D ≤ 720, e.g. means of 0/1 metrics)
   and no multiple of δ lies in (L, U], the incumbent is optimal.  Otherwise the remaining
   core (dialogues left with ≥ 2 options) is solved with ``scipy.optimize.milp`` (HiGHS
   branch-and-bound, ``mip_rel_gap=0``); a non-optimal HiGHS status raises ``RuntimeError``.

Tie-breaks: Σ quality is maximised exactly and the returned choice is deterministic (fixed
greedy order — slope, dialogue, hull position — and the deterministic HiGHS solver on
sorted input), cheapest per quality level within a dialogue; the total cost is *not* minimised
among all quality-optimal solutions.

Budgets below Σ_i min_j c_ij are infeasible (``feasible=False``, NaN quality); budgets at or
above the quality oracle's total return the quality oracle.  Label every output with
:data:`LABEL`: these are in-sample upper bounds with perfect foresight.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from trace_crs.oracle.table import OracleInstance

LABEL = "in-sample upper bound with perfect foresight"
_TOL = 1e-9


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
        return pd.DataFrame({"dialogue_id": inst.dialogue_ids,
                             "baseline": np.array(inst.baselines)[self.choice],
                             "quality": inst.quality[rows, self.choice],
                             "cost": inst.cost[rows, self.choice]})

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
    return OracleResult(kind, float(budget), True, choice, float(inst.quality[rows, choice].mean()),
                        float(inst.cost[rows, choice].sum()), solver)


def quality_choice(quality: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Per row: max quality, then min cost, then lowest column index."""
    top = quality == quality.max(axis=1, keepdims=True)
    return np.where(top, cost, np.inf).argmin(axis=1)


def quality_oracle(inst: OracleInstance) -> OracleResult:
    """Per dialogue the cheapest baseline among those with the top quality."""
    return _result("quality", inst, np.nan, quality_choice(inst.quality, inst.cost), "closed form")


@dataclass(frozen=True)
class _Prepared:
    pareto: np.ndarray        # bool (n × k): option kept by step 1
    base_choice: np.ndarray   # cheapest Pareto option per row
    up_row: np.ndarray        # hull upgrades in greedy order: row, target column, Δc, Δq
    up_col: np.ndarray
    up_dc: np.ndarray
    up_dq: np.ndarray


def _prepare(q: np.ndarray, c: np.ndarray) -> _Prepared:
    """Steps 1–2 that do not depend on the budget."""
    n, k = q.shape
    pareto = np.zeros((n, k), bool)
    base = np.empty(n, int)
    ups: list[tuple[float, int, int, int, float, float]] = []
    for i in range(n):
        order = np.lexsort((np.arange(k), -q[i], c[i]))
        kept, best = [], -np.inf
        for j in order:
            if q[i, j] > best:
                kept.append(int(j))
                best = q[i, j]
        pareto[i, kept] = True
        base[i] = kept[0]
        hull: list[int] = []
        for j in kept:  # upper convex hull, slopes strictly decreasing
            while len(hull) >= 2:
                a, b = hull[-2], hull[-1]
                if (q[i, b] - q[i, a]) * (c[i, j] - c[i, b]) <= (q[i, j] - q[i, b]) * (c[i, b] - c[i, a]):
                    hull.pop()
                else:
                    break
            hull.append(j)
        for pos in range(1, len(hull)):
            a, b = hull[pos - 1], hull[pos]
            dc, dq = c[i, b] - c[i, a], q[i, b] - q[i, a]
            ups.append((-dq / dc, i, pos, b, dc, dq))
    ups.sort(key=lambda u: u[:3])
    arr = np.array([u[1:] for u in ups], float).reshape(-1, 5)
    return _Prepared(pareto, base, arr[:, 0].astype(int), arr[:, 2].astype(int), arr[:, 3], arr[:, 4])


def _improve(q: np.ndarray, c: np.ndarray, pareto: np.ndarray, choice: np.ndarray, budget: float) -> np.ndarray:
    """Greedy single-dialogue upgrades into the left-over budget (keeps feasibility)."""
    rows = np.arange(len(choice))
    for _ in range(50):
        left = budget - c[rows, choice].sum()
        gain = np.where(pareto & (c - c[rows, choice][:, None] <= left), q - q[rows, choice][:, None], -np.inf)
        i = int(np.argmax(gain.max(axis=1)))
        if gain[i].max() <= 0:
            break
        choice = choice.copy()
        choice[i] = int(np.argmax(gain[i]))
    return choice


def _quantum(q: np.ndarray) -> float:
    """Smallest δ = 1/D (D ≤ 720) with every quality an integer multiple of δ, else 0."""
    for d in range(1, 721):
        if np.abs(q * d - np.round(q * d)).max() < 1e-9:
            return 1.0 / d
    return 0.0


def _solve_core(q: np.ndarray, c: np.ndarray, keep: np.ndarray, budget: float) -> np.ndarray:
    """Exact max-quality MCKP on the options in ``keep`` via HiGHS."""
    rows, cols = np.nonzero(keep)
    n, m = q.shape[0], len(rows)
    qq, cc = q[rows, cols], c[rows, cols]
    one = LinearConstraint(sparse.csr_matrix((np.ones(m), (rows, np.arange(m))), shape=(n, m)), 1, 1)
    scale = max(budget, float(cc.max()), 1e-12)
    spend = LinearConstraint(sparse.csr_matrix(cc[None, :] / scale), -np.inf, budget / scale)
    res = milp(-qq, integrality=np.ones(m), bounds=Bounds(0, 1), constraints=[one, spend],
               options={"mip_rel_gap": 0.0, "presolve": True})
    if res.status != 0:
        raise RuntimeError(f"budget oracle: HiGHS did not prove optimality (status {res.status}: {res.message})")
    x = res.x > 0.5
    choice = np.empty(n, int)
    choice[rows[x]] = cols[x]
    return choice


def budget_oracle(inst: OracleInstance, budget: float, prepared: _Prepared | None = None) -> OracleResult:
    """Exact multiple-choice knapsack at total ``budget`` (see module docstring)."""
    q, c = inst.quality, inst.cost
    if not np.isfinite(budget):
        raise ValueError(f"budget oracle: budget must be a finite number, got {budget!r}")
    rows = np.arange(q.shape[0])
    qo = quality_choice(q, c)
    if budget >= c[rows, qo].sum():
        return _result("budget", inst, budget, qo, "quality oracle fits")
    prep = prepared or _prepare(q, c)
    floor_cost = c[rows, prep.base_choice].sum()
    if budget < floor_cost:
        return _result("budget", inst, budget, None, f"infeasible: budget < Σ min cost = {floor_cost:.6g}")
    cum = np.cumsum(prep.up_dc)
    m = int(np.searchsorted(cum, budget - floor_cost, side="right"))
    if m >= len(cum):  # every hull upgrade fits (rounding at the quality-oracle total)
        return _result("budget", inst, budget, qo, "quality oracle fits")
    choice = prep.base_choice.copy()
    choice[prep.up_row[:m]] = prep.up_col[:m]  # later upgrades of a row overwrite earlier ones
    lam = prep.up_dq[m] / prep.up_dc[m]
    upper = q[rows, choice].sum() + lam * (budget - floor_cost - (cum[m - 1] if m else 0.0))
    choice = _improve(q, c, prep.pareto, choice, budget)
    lower = q[rows, choice].sum()
    delta = _quantum(q)
    if delta and lower >= np.floor(upper / delta + 1e-6) * delta - 1e-9:  # no grid value above L fits under U
        return _result("budget", inst, budget, choice, "exact MCKP (greedy incumbent proved optimal on the quality grid)")
    value = q - lam * c
    reduced = value - np.where(prep.pareto, value, -np.inf).max(axis=1, keepdims=True)
    keep = prep.pareto & (reduced >= lower - upper - _TOL * max(1.0, abs(upper)))
    keep[rows, choice] = True
    free = keep.sum(axis=1) > 1
    if free.any():
        fixed_cost = c[rows[~free], np.argmax(keep[~free], axis=1)].sum() if (~free).any() else 0.0
        core = _solve_core(q[free], c[free], keep[free], budget - fixed_cost)
        choice = np.argmax(keep, axis=1)
        choice[free] = core
    total = c[rows, choice].sum()
    if total > budget * (1 + 1e-7) + 1e-12:
        raise RuntimeError(f"budget oracle: solution cost {total!r} exceeds budget {budget!r}")
    return _result("budget", inst, budget, choice, f"exact MCKP (core {int(free.sum())} dialogues, HiGHS)")
