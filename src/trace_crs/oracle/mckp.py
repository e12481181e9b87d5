"""Exact multiple-choice knapsack (MCKP) with a lexicographic tie-break, for the budget oracle.

Problem.  ``q`` (quality) and ``c`` (cost ≥ 0) are n × k; a choice ``x`` takes one column per
row.  ``Q(x) = Σ_i q[i, x_i]``, ``C(x) = Σ_i c[i, x_i]``; ``x`` is feasible at budget B when
``C(x) ≤ B + ε_B`` with ``ε_B = 1e-10·|B|`` (float rounding of a sum, nothing more).

Answer (one fixed, total order).  Let ``Q*`` be the largest ``Q(x)`` over feasible ``x`` and
``τ = 1e-9 · max(1, Σ_i max_j |q_ij|)`` (float noise: 0.1 + 0.2 + 0.3 ≠ 0.6 in float64).  Among
feasible ``x`` with ``Q(x) ≥ Q* − τ`` return the one with (1) the least ``C(x)``, then (2) the
greatest ``Q(x)``, then (3) the lexicographically smallest column vector ``(x_1, …, x_n)``.
Sums are float64 as computed; "exact" below means exact for this definition, not a heuristic.

Method — exact: every step below only discards choices that provably cannot be the answer.

1. *Pareto options* (:func:`prepare`, budget-independent): per row keep options by increasing
   cost with strictly increasing quality; of equal (q, c) the first column.  Replacing a dropped
   option by its dominator never makes a choice worse in the order above.
2. *LP relaxation* (Dyer 1984; Zemel 1984): the upper convex hull of each row's options; hull
   upgrades taken in order of decreasing slope Δq/Δc until one does not fit.  That one gives
   the multiplier λ, the taken prefix is the *break solution* ``b`` and ``U = Q(b) + λ·(B − C(b))``
   is the LP bound.
3. *Lagrangian bound*: with reduced costs ``r_ij = (q_ij − λc_ij) − (q_ib_i − λc_ib_i) ≤ 0`` (b
   maximises q − λc per row), every ``x`` has ``Q(x) − λC(x) = Q(b) − λC(b) + Σ_i r_i,x_i``,
   hence ``Q(x) ≤ U + Σ_i r_i,x_i`` when feasible.  Any candidate answer has ``Q(x) ≥ L − τ``
   for every feasible incumbent value ``L ≤ Q*``, so it needs ``Σ_i r_i,x_i ≥ L − τ − U``.
4. *Core dynamic programme* (after Pisinger 1995, "A minimal algorithm for the multiple-choice
   knapsack problem"): rows enter one at a time, in order of their best reduced cost (closest
   to 0 first); a state is a choice for the entered rows (the others stay at ``b``), kept as
   ``(ΔC, ΔQ)`` relative to ``b``.  A state is dropped when ``Σ r < L − τ − U`` (step 3, ``L``
   being the best feasible state so far, so the bound tightens as the programme runs) or when
   another state has ``ΔC ≤`` and ``ΔQ ≥`` (it is then at least as good under every completion,
   float rounding being monotone); of exactly equal states the lexicographically smaller one
   survives.  Entry stops at the first row whose best reduced cost cannot meet the bound: rows
   are sorted, so no later row can.  The answer is read off the final states.
   *Grid bound*: when every quality is a multiple of δ = 1/D (D ≤ 720, e.g. means of 0/1
   metrics), ``Q*`` is at most the largest multiple of δ not above ``U``.  A feasible state ``s``
   reaching it is then in the tie set, so the answer costs at most ``C(s)`` and has
   ``Q ≥ Q(s) − τ``: ``Σ r ≥ Σ r(s) − τ``, a much tighter bound when ``s`` leaves budget unused.
5. *Fixed order*: if two states ever coincided exactly, the programme is rerun on the rows
   that can still enter, in reverse row order: each entering row then precedes every entered
   one, so ranking tied states by (column of the new row, rank of the parent) ranks them by
   the column vector, and level (3) is decided exactly.
6. If a state list exceeds :data:`MAX_STATES` (adversarial, subset-sum-like instances), the rows
   still in play go to HiGHS (``scipy.optimize.milp``, ``mip_rel_gap=0``): max ``Q``, then min ``C``
   subject to ``Q ≥ Q* − τ`` — optimal up to HiGHS's feasibility tolerances (~1e-6), never over
   budget, and level (3) is not guaranteed on this path; the solver string says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

MAX_STATES = 50_000
HIGHS_TIME_LIMIT_S = 120.0
BUDGET_RTOL = 1e-10
TIE_RTOL = 1e-9


@dataclass(frozen=True)
class Prepared:
    """Budget-independent structure of an instance (steps 1–2)."""

    pareto: np.ndarray  # bool (n × k): Pareto option
    base: np.ndarray  # cheapest Pareto option per row
    up_row: np.ndarray  # hull upgrades in greedy order: row, target column, Δc, Δq
    up_col: np.ndarray
    up_dc: np.ndarray
    up_dq: np.ndarray
    tau: float  # quality tie tolerance τ
    quantum: float  # δ = 1/D (D ≤ 720) when every quality is a multiple of δ, else 0


def _quantum(q: np.ndarray) -> float:
    """Smallest δ = 1/D, D ≤ 720, with every quality an integer multiple of δ (within 1e-12), else 0."""
    d = np.arange(1, 721)
    sample = np.unique(q.ravel()[:4096])[:64]
    scaled = sample[:, None] * d
    for cand in d[np.all(np.abs(scaled - np.round(scaled)) < 1e-12, axis=0)]:
        if np.abs(q * cand - np.round(q * cand)).max() < 1e-12:
            return 1.0 / float(cand)
    return 0.0


def prepare(q: np.ndarray, c: np.ndarray) -> Prepared:
    """Pareto options, convex hulls and the greedy order of hull upgrades (steps 1–2)."""
    n, k = q.shape
    pareto = np.zeros((n, k), bool)
    base = np.empty(n, int)
    ups: list[tuple[float, int, int, int, float, float]] = []
    for i in range(n):
        kept, best = [], -np.inf
        for j in np.lexsort((np.arange(k), -q[i], c[i])):
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
        key = np.inf  # slopes made non-increasing along the hull, so float rounding of the
        for pos in range(1, len(hull)):  # division never takes a row's upgrades out of order
            a, b = hull[pos - 1], hull[pos]
            dc, dq = c[i, b] - c[i, a], q[i, b] - q[i, a]
            key = min(key, dq / dc)
            ups.append((-key, i, pos, b, dc, dq))
    ups.sort(key=lambda u: u[:3])
    arr = np.array([u[1:] for u in ups], float).reshape(-1, 5)
    tau = TIE_RTOL * max(1.0, float(np.abs(q).max(axis=1).sum()))
    return Prepared(pareto, base, arr[:, 0].astype(int), arr[:, 2].astype(int), arr[:, 3], arr[:, 4], tau, _quantum(q))


@dataclass
class _Core:
    """Reduced costs around the break solution ``b`` at one budget (step 3)."""

    q: np.ndarray
    c: np.ndarray
    b: np.ndarray  # break solution
    lam: float
    room: float  # B − C(b)
    slack: float  # λ·(B − C(b)) = U − Q(b)
    eps_b: float  # budget rounding ε_B
    tau: float
    tol: float  # float slack on the bound (widens the core only)
    ceiling: float  # upper bound on Q* − Q(b): the LP bound, or the grid value below it
    r: np.ndarray  # reduced costs, −inf off the Pareto set and at b
    best: np.ndarray  # best alternative reduced cost per row

    def threshold(self, dq_best: float) -> float:
        """Least Σ r a candidate answer can have, given a feasible state with ΔQ = ``dq_best``."""
        return dq_best - self.tau - self.slack - self.tol


def _pareto_states(dc: np.ndarray, dq: np.ndarray, col: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, bool]:
    """Indices of the non-dominated states sorted by ΔC, and whether an exact tie was collapsed."""
    order = np.lexsort((rank, col, -dq, dc))
    sdq = dq[order]
    keep = np.ones(len(order), bool)
    keep[1:] = sdq[1:] > np.maximum.accumulate(sdq)[:-1]
    sdc = dc[order]
    tie = bool(np.any((sdc[1:] == sdc[:-1]) & (sdq[1:] == sdq[:-1])))
    return order[keep], tie


def _dp(
    core: _Core, rows: np.ndarray, dq_best: float, thr: float, stop_early: bool
) -> tuple[np.ndarray | None, float, float, bool, int]:
    """Step 4 over ``rows`` in the given order, from incumbent ``dq_best`` and bound ``thr``.

    Returns ``(choice, or None when the state cap was hit; best feasible ΔQ seen; final bound;
    whether an exact tie was collapsed; rows entered)``.
    """
    dc, dq = np.zeros(1), np.zeros(1)
    rank = np.zeros(1, np.int64)
    history: list[tuple[int, np.ndarray, np.ndarray]] = []
    tie = False
    for i in rows:
        need = thr - float((dq - core.lam * dc).max())
        if core.best[i] < need:
            if stop_early:
                break
            continue
        alts = np.flatnonzero(core.r[i] >= need)
        cols = np.concatenate(([core.b[i]], alts))
        step_c = core.c[i, cols] - core.c[i, core.b[i]]
        step_q = core.q[i, cols] - core.q[i, core.b[i]]
        cdc, cdq = (dc[:, None] + step_c).ravel(), (dq[:, None] + step_q).ravel()
        parent = np.repeat(np.arange(len(dc)), len(cols))
        ccol, prank = np.tile(cols, len(dc)), rank[parent]
        ok = np.flatnonzero(cdq - core.lam * cdc >= thr)
        idx, t = _pareto_states(cdc[ok], cdq[ok], ccol[ok], prank[ok])
        tie |= t
        idx = ok[idx]
        feasible = cdc[idx] <= core.room + core.eps_b
        if feasible.any():
            dq_best = max(dq_best, float(cdq[idx][feasible].max()))
            thr = max(thr, core.threshold(dq_best))
            proven = feasible & (cdq[idx] >= core.ceiling - core.tau / 2)  # Q = Q* on the grid
            if proven.any():  # the answer costs at most as much as a proven state (step 4')
                thr = max(thr, float((cdq[idx] - core.lam * cdc[idx])[proven].max()) - core.tau - core.tol)
        idx = idx[cdq[idx] - core.lam * cdc[idx] >= thr]
        dc, dq = cdc[idx], cdq[idx]
        rank = np.empty(len(idx), np.int64)
        rank[np.lexsort((prank[idx], ccol[idx]))] = np.arange(len(idx))
        history.append((int(i), parent[idx], ccol[idx]))
        if len(idx) > MAX_STATES:
            return None, dq_best, thr, tie, len(history)
    feasible = dc <= core.room + core.eps_b
    dq_best = max(dq_best, float(dq[feasible].max()))
    state = int(np.flatnonzero(feasible & (dq >= dq_best - core.tau))[0])  # states are sorted by ΔC
    choice = core.b.copy()
    for i, parent, col in reversed(history):
        choice[i] = col[state]
        state = int(parent[state])
    return choice, dq_best, thr, tie, len(history)


def _highs(core: _Core, rows: np.ndarray, thr: float, budget: float) -> np.ndarray:
    """Step 6: max Q, then min C s.t. Q ≥ Q* − τ, over the rows in play (HiGHS).

    HiGHS meets constraints up to its feasibility tolerance; a solution over budget by more than
    ε_B is re-solved with the budget lowered by the excess (at most three times).
    """
    keep = np.zeros_like(core.r, bool)
    keep[rows] = core.r[rows] >= thr
    keep[np.arange(len(core.b)), core.b] = True
    r, j = np.nonzero(keep)
    m, n = len(r), len(core.b)
    qq, cc = core.q[r, j], core.c[r, j]
    one = LinearConstraint(sparse.csr_matrix((np.ones(m), (r, np.arange(m))), shape=(n, m)), 1, 1)
    opts = {"mip_rel_gap": 0.0, "presolve": True, "time_limit": HIGHS_TIME_LIMIT_S}
    cap = budget + core.eps_b
    for _ in range(4):
        spend = LinearConstraint(cc[None, :], -np.inf, cap)
        res = milp(-qq, integrality=np.ones(m), bounds=Bounds(0, 1), constraints=[one, spend], options=opts)
        if res.status == 0:
            floor = LinearConstraint(qq[None, :], -res.fun - core.tau, np.inf)
            res = milp(cc, integrality=np.ones(m), bounds=Bounds(0, 1), constraints=[one, spend, floor], options=opts)
        if res.status != 0:
            raise RuntimeError(f"budget oracle: HiGHS did not prove optimality (status {res.status}: {res.message})")
        x = res.x > 0.5
        excess = float(cc[x].sum()) - (budget + core.eps_b)
        if excess <= 0:
            choice = np.empty(n, int)
            choice[r[x]] = j[x]
            return choice
        cap -= excess
    raise RuntimeError(f"budget oracle: HiGHS solutions exceed the budget {budget!r} by rounding")


def solve(q: np.ndarray, c: np.ndarray, prep: Prepared, budget: float) -> tuple[np.ndarray, str]:
    """The answer at ``budget`` (module docstring) for a budget between Σ min cost and the top.

    The caller handles infeasible budgets and budgets at which the quality oracle fits.
    """
    n = q.shape[0]
    rows = np.arange(n)
    eps_b = BUDGET_RTOL * abs(budget)
    floor = c[rows, prep.base].sum()
    m = int(np.searchsorted(np.cumsum(prep.up_dc), budget + eps_b - floor, side="right"))
    while True:  # the greedy prefix; one upgrade fewer if rounding of the cumulative sum let it overflow
        b = prep.base.copy()
        b[prep.up_row[:m]] = prep.up_col[:m]  # later upgrades of a row overwrite earlier ones
        room = budget - c[rows, b].sum()
        if room >= -eps_b or m == 0:
            break
        m -= 1
    if m >= len(prep.up_dc):  # every row at its top option: LP solution is integral (rounding corner)
        return b, "exact MCKP (LP solution integral)"
    lam = float(prep.up_dq[m] / prep.up_dc[m])
    r = (q - q[rows, b][:, None]) - lam * (c - c[rows, b][:, None])
    r = np.where(prep.pareto, r, -np.inf)
    r[rows, b] = -np.inf
    scale = float(np.abs(q).max(axis=1).sum() + lam * c.max(axis=1).sum())
    ceiling = np.inf  # grid: Q* is the largest multiple of δ not above U
    if prep.quantum:
        qb = q[rows, b].sum()
        ceiling = prep.quantum * np.floor((qb + lam * room) / prep.quantum + 1e-6) - qb
    core = _Core(q, c, b, lam, room, lam * room, eps_b, prep.tau, 1e-9 * max(1.0, scale), ceiling, r, r.max(axis=1))
    # Cheap incumbent: the single upgrade that fits into the left-over budget and gains most.
    gain = np.where((c - c[rows, b][:, None] <= room + eps_b) & prep.pareto, q - q[rows, b][:, None], 0.0)
    dq0 = float(gain.max())
    start = core.threshold(dq0)
    order = np.flatnonzero(core.best >= start)
    order = order[np.lexsort((order, -core.best[order]))]
    choice, dq_best, thr, tie, entered = _dp(core, order, dq0, start, stop_early=True)
    note = f"exact MCKP (core DP, {entered} dialogues entered)"
    if choice is not None and tie:
        rerun = np.flatnonzero(core.best >= thr)[::-1]
        choice, dq_best, thr, _, entered = _dp(core, rerun, dq_best, thr, stop_early=False)
        note = f"exact MCKP (core DP, {entered} dialogues entered; rerun in dialogue order for ties)"
    if choice is None:
        choice = _highs(core, np.flatnonzero(core.best >= thr), thr, budget)
        note = "MCKP via HiGHS (DP state cap hit: optimal up to HiGHS tolerances, fixed order not guaranteed)"
    return choice, note
