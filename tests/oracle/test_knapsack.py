"""Oracles vs brute-force enumeration written here."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from trace_crs.oracle import LABEL, budget_curve, budget_oracle, elbow, oracle_instance, quality_oracle


def _table(q: np.ndarray, c: np.ndarray) -> pd.DataFrame:
    n, k = q.shape
    return pd.DataFrame([{"dialogue_id": f"d{i}", "baseline": f"b{j}", "quality": q[i, j], "cost": c[i, j]}
                         for i in range(n) for j in range(k)])


def _brute(q: np.ndarray, c: np.ndarray, budget: float) -> tuple[float, float] | None:
    """(max Σ quality, min Σ cost among the maximisers) by enumerating every assignment."""
    best = None
    rows = np.arange(q.shape[0])
    for combo in itertools.product(range(q.shape[1]), repeat=q.shape[0]):
        cost = c[rows, combo].sum()
        if cost <= budget + 1e-12:
            key = (round(q[rows, combo].sum(), 9), -round(cost, 9))
            best = key if best is None or key > best else best
    return None if best is None else (best[0], -best[1])


def _instance(seed: int, n: int, k: int, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 3, (n, k)) / 2 if discrete else rng.random((n, k))
    c = rng.integers(0, 5, (n, k)).astype(float) if discrete else rng.random((n, k)) * 3
    return q, c


@pytest.mark.parametrize("seed", range(16))
def test_matches_brute_force(seed):
    n, k = (6, 3) if seed >= 10 else (2 + seed % 5, 2 + seed % 2)
    q, c = _instance(seed, n, k, discrete=seed % 2 == 0)
    inst = oracle_instance(_table(q, c))
    for budget in np.linspace(c.min(axis=1).sum() - 0.5, c.max(axis=1).sum(), 9):
        res = budget_oracle(inst, float(budget))
        want = _brute(q, c, budget)
        if want is None:
            assert not res.feasible and np.isnan(res.mean_quality)
        else:
            assert res.feasible
            assert res.mean_quality * n == pytest.approx(want[0], abs=1e-8)
            assert res.total_cost <= budget + 1e-9


def test_monotone_and_reaches_quality_oracle():
    q, c = _instance(5, 6, 3, discrete=False)
    inst = oracle_instance(_table(q, c))
    curve, shares = budget_curve(inst, n_points=15)
    feas = curve[curve["feasible"]]
    assert np.all(np.diff(feas["mean_quality"]) >= -1e-12)
    qo = quality_oracle(inst)
    assert feas["mean_quality"].iloc[-1] == pytest.approx(qo.mean_quality)
    top = budget_oracle(inst, qo.total_cost + 1.0)
    assert np.array_equal(top.choice, qo.choice)
    assert set(curve["label"]) == {LABEL}
    assert shares.groupby("budget")["share"].sum().tolist() == pytest.approx([1.0] * 15)


def test_quality_oracle_tie_breaks_by_cost_then_name():
    # d0: b0 and b1 tie on quality 1.0, b1 cheaper → b1; d1: all tie on quality and cost → b0
    table = pd.DataFrame({"dialogue_id": ["d0"] * 3 + ["d1"] * 3, "baseline": ["b0", "b1", "b2"] * 2,
                          "quality": [1.0, 1.0, 0.5, 0.2, 0.2, 0.2], "cost": [3, 1, 0, 2, 2, 2.0]})
    inst = oracle_instance(table)
    res = quality_oracle(inst)
    assert res.choices(inst)["baseline"].tolist() == ["b1", "b0"]
    assert res.total_cost == 3.0 and res.mean_quality == pytest.approx(0.6)
    assert res.shares(inst).tolist() == [0.5, 0.5, 0.0]


def test_hand_knapsack_and_infeasible_budget():
    # d0: cheap (q 0, c 0) or good (q 1, c 2); d1: cheap (q 0, c 1) or good (q 1, c 2).
    table = pd.DataFrame({"dialogue_id": ["d0", "d0", "d1", "d1"], "baseline": ["cheap", "good"] * 2,
                          "quality": [0.0, 1.0, 0.0, 1.0], "cost": [0.0, 2.0, 1.0, 2.0]})
    inst = oracle_instance(table)
    assert not budget_oracle(inst, 0.5).feasible  # Σ min cost = 1
    two = budget_oracle(inst, 2.0)  # upgrading d1 costs +1 → q 1 at cost 2 (d0 upgrade costs +2 → 3)
    assert two.mean_quality == 0.5 and two.total_cost == 2.0
    assert two.choices(inst)["baseline"].tolist() == ["cheap", "good"]
    assert budget_oracle(inst, 4.0).mean_quality == 1.0


def test_elbow_rule_by_hand():
    # normalised: x = 0, .25, .5, .75, 1; y = 0, .8, .9, .95, 1 → y − x max at x = .25
    assert elbow([0, 1, 2, 3, 4], [0, 0.8, 0.9, 0.95, 1.0]) == 1.0
    assert np.isnan(elbow([0, 1, 2], [1, 1, 1]))
    assert np.isnan(elbow([0, 1], [0, 1]))


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.iloc[1:], "no row for baseline"),
    (lambda t: t.assign(cost=t["cost"].where(t.index != 2, -1.0)), "field 'cost'"),
    (lambda t: t.assign(quality=t["quality"].where(t.index != 3, np.nan)), "field 'quality'"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "duplicate rows"),
    (lambda t: t.iloc[:0], "no rows"),
])
def test_bad_input_is_a_clear_error(mutate, message):
    q, c = _instance(1, 3, 2, discrete=True)
    with pytest.raises(ValueError, match=message):
        oracle_instance(mutate(_table(q, c)))


def test_nan_budget_rejected_negative_budget_infeasible():
    q, c = _instance(1, 3, 2, discrete=True)
    inst = oracle_instance(_table(q, c))
    with pytest.raises(ValueError, match="budget"):
        budget_oracle(inst, float("nan"))
    res = budget_oracle(inst, -1.0)
    assert not res.feasible and "infeasible" in res.solver and res.choices(inst).empty
