"""The exact MCKP solver vs brute-force enumeration and vs HiGHS, both written here.

The reference answer (module docstring of ``trace_crs.oracle.mckp``): among feasible choices
(Σ cost ≤ B·(1 + 1e-10)) whose Σ quality is within τ = 1e-9·max(1, Σ_i max_j |q_ij|) of the
best, the least Σ cost, then the greatest Σ quality, then the lexicographically smallest
vector of column indices.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from trace_crs.oracle import budget_oracle, oracle_instance
from trace_crs.oracle import mckp
from trace_crs.oracle.mckp import prepare


def _table(q: np.ndarray, c: np.ndarray) -> pd.DataFrame:
    n, k = q.shape
    return pd.DataFrame([{"dialogue_id": f"d{i}", "baseline": f"b{j}", "quality": q[i, j], "cost": c[i, j]}
                         for i in range(n) for j in range(k)])


def _brute(q: np.ndarray, c: np.ndarray, budget: float) -> tuple[float, float, tuple[int, ...]] | None:
    """(Σ quality, Σ cost, choice) of the reference answer, by enumerating every choice."""
    n, k = q.shape
    tau = 1e-9 * max(1.0, sum(max(abs(v) for v in row) for row in q.tolist()))
    sols = []
    for combo in itertools.product(range(k), repeat=n):  # lexicographic order
        cost = math.fsum(c[i, j] for i, j in enumerate(combo))
        if cost <= budget + 1e-10 * abs(budget):
            sols.append((math.fsum(q[i, j] for i, j in enumerate(combo)), cost, combo))
    if not sols:
        return None
    best = max(s[0] for s in sols)
    tied = [s for s in sols if s[0] >= best - tau]
    cheapest = min(s[1] for s in tied)
    tied = [s for s in tied if s[1] == cheapest]
    top = max(s[0] for s in tied)
    return next(s for s in tied if s[0] == top)


def _instance(kind: str, seed: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """dyadic: exact ties; repeated: dyadic rows from two templates (ties between dialogues);
    thirds: ties up to float noise; continuous; quality ties (continuous values, shared)."""
    rng = np.random.default_rng(seed)
    if kind == "repeated":
        q, c = rng.integers(0, 5, (2, k)) / 4, rng.integers(0, 5, (2, k)).astype(float)
        rows = rng.integers(0, 2, n)
        return q[rows], c[rows]
    if kind == "dyadic":
        return rng.integers(0, 5, (n, k)) / 4, rng.integers(0, 5, (n, k)).astype(float)
    if kind == "thirds":
        return rng.integers(0, 4, (n, k)) / 3, rng.integers(0, 4, (n, k)).astype(float)
    if kind == "continuous":
        return rng.random((n, k)), rng.random((n, k)) * 3
    levels = rng.random(3)  # "quality ties": continuous qualities drawn from three values
    return levels[rng.integers(0, 3, (n, k))], rng.random((n, k)) * 3


SHAPES = [(2, 2), (3, 3), (4, 2), (4, 4), (5, 3), (6, 3), (6, 3), (6, 3)]
KINDS = ("dyadic", "repeated", "thirds", "continuous", "quality_ties")
CASES = [(kind, seed, *SHAPES[seed % len(SHAPES)]) for kind in KINDS for seed in range(12)]


@pytest.mark.parametrize("kind, seed, n, k", CASES)
def test_matches_brute_force(kind, seed, n, k):
    q, c = _instance(kind, seed, n, k)
    inst = oracle_instance(_table(q, c))
    low, high = c.min(axis=1).sum(), c.max(axis=1).sum()
    budgets = np.concatenate([np.linspace(low - 0.5, high, 7), np.linspace(low, (low + high) / 2, 9)])
    if kind in ("dyadic", "repeated", "thirds"):  # integer budgets hit cost totals exactly
        budgets = np.concatenate([budgets, np.arange(0, high + 1)])
    prep = prepare(inst.quality, inst.cost)
    for budget in budgets:
        res = budget_oracle(inst, float(budget), prep)
        want = _brute(q, c, float(budget))
        if want is None:
            assert not res.feasible and np.isnan(res.mean_quality)
            continue
        assert res.feasible
        assert res.mean_quality * n == pytest.approx(want[0], abs=1e-9)
        assert res.total_cost == pytest.approx(want[1], abs=1e-12)
        if kind != "thirds":  # thirds: level (2) compares sums that differ only by float noise
            assert tuple(res.choice) == want[2], (budget, res.solver)


def _highs(q: np.ndarray, c: np.ndarray, budget: float, tau: float) -> tuple[float, float]:
    """Max Σ q, then min Σ c subject to Σ q ≥ max − τ, with HiGHS on the full model."""
    n, k = q.shape
    m = n * k
    one = LinearConstraint(sparse.csr_matrix((np.ones(m), (np.repeat(np.arange(n), k), np.arange(m))), (n, m)), 1, 1)
    spend = LinearConstraint(c.ravel()[None, :], -np.inf, budget)
    opts = {"mip_rel_gap": 0.0}
    first = milp(-q.ravel(), integrality=np.ones(m), bounds=Bounds(0, 1), constraints=[one, spend], options=opts)
    floor = LinearConstraint(q.ravel()[None, :], -first.fun - tau, np.inf)
    second = milp(c.ravel(), integrality=np.ones(m), bounds=Bounds(0, 1), constraints=[one, spend, floor],
                  options=opts)
    assert first.status == 0 and second.status == 0
    return -first.fun, float(second.fun)


@pytest.mark.parametrize("grid", [False, True])
def test_matches_highs_on_a_larger_instance(grid):
    rng = np.random.default_rng(7)
    n, k = 300, 8
    q = rng.random((n, k))
    q = np.round(q * 6) / 6 if grid else q
    c = rng.lognormal(-6, 1, (n, k)) * (np.arange(k) >= 3)
    inst = oracle_instance(_table(q, c))
    prep = prepare(inst.quality, inst.cost)
    for budget in np.linspace(c.min(axis=1).sum(), c[np.arange(n), q.argmax(axis=1)].sum(), 7)[1:-1]:
        res = budget_oracle(inst, float(budget), prep)
        want_q, want_c = _highs(q, c, float(budget), prep.tau)
        assert res.mean_quality * n == pytest.approx(want_q, abs=1e-7)
        assert res.total_cost == pytest.approx(want_c, rel=1e-6, abs=1e-9)


def test_state_cap_falls_back_to_highs(monkeypatch):
    q, c = _instance("continuous", 3, 6, 3)
    inst = oracle_instance(_table(q, c))
    monkeypatch.setattr(mckp, "MAX_STATES", 0)
    budget = float(np.mean([c.min(axis=1).sum(), c.max(axis=1).sum()]))
    res = budget_oracle(inst, budget)
    want = _brute(q, c, budget)
    assert "HiGHS" in res.solver
    assert res.mean_quality * 6 == pytest.approx(want[0], abs=1e-7)
    assert res.total_cost == pytest.approx(want[1], abs=1e-7)


@pytest.mark.parametrize("q, quantum", [
    ([[0.0, 1 / 3], [2 / 3, 1.0]], 1 / 3),
    ([[0.25, 0.5], [0.75, 1.0]], 0.25),
    ([[0.0, 1 / 6], [0.5, 1.0]], 1 / 6),
    ([[1.0, 2.0], [3.0, 0.0]], 1.0),
    ([[0.123456, 0.5], [0.75, 1.0]], 0.0),
])
def test_quality_grid_detection(q, quantum):
    q = np.array(q)
    assert prepare(q, np.ones_like(q)).quantum == pytest.approx(quantum)


def test_pareto_options_and_break_order_by_hand():
    # row 0: (q, c) = (0, 0), (0.5, 2) dominated by (0.6, 1), (1, 3); row 1: (1, 0) dominates all.
    q = np.array([[0.0, 0.5, 0.6, 1.0], [1.0, 0.2, 1.0, 0.4]])
    c = np.array([[0.0, 2.0, 1.0, 3.0], [0.0, 1.0, 0.0, 0.5]])
    prep = prepare(q, c)
    assert prep.pareto.tolist() == [[True, False, True, True], [True, False, False, False]]
    assert prep.base.tolist() == [0, 0]
    # hull of row 0: slopes 0.6 (0 → 2) then 0.2 (2 → 3); row 1 has no upgrade.
    assert prep.up_row.tolist() == [0, 0] and prep.up_col.tolist() == [2, 3]
    assert prep.up_dq / prep.up_dc == pytest.approx([0.6, 0.2])
    assert prep.tau == pytest.approx(2e-9)
