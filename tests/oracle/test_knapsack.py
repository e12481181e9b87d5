"""Oracles on hand-worked instances (brute-force and HiGHS comparisons are in test_mckp.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.oracle import LABEL, budget_curve, budget_oracle, elbow, oracle_instance, quality_oracle


def _table(q: np.ndarray, c: np.ndarray) -> pd.DataFrame:
    n, k = q.shape
    return pd.DataFrame([{"dialogue_id": f"d{i}", "baseline": f"b{j}", "quality": q[i, j], "cost": c[i, j]}
                         for i in range(n) for j in range(k)])


def _instance(seed: int, n: int, k: int, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 3, (n, k)) / 2 if discrete else rng.random((n, k))
    c = rng.integers(0, 5, (n, k)).astype(float) if discrete else rng.random((n, k)) * 3
    return q, c


def _choices(table: pd.DataFrame, budget: float | None = None) -> list[str]:
    inst = oracle_instance(table)
    res = quality_oracle(inst) if budget is None else budget_oracle(inst, budget)
    return res.choices(inst)["baseline"].tolist()


def _one_dialogue(quality: list[float], cost: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"dialogue_id": "d0", "baseline": [f"b{j}" for j in range(len(quality))],
                         "quality": quality, "cost": cost})


def test_monotone_and_reaches_quality_oracle():
    q, c = _instance(5, 6, 3, discrete=False)
    inst = oracle_instance(_table(q, c))
    curve, shares = budget_curve(inst, n_points=15)
    feas = curve[curve["feasible"]]
    assert np.all(np.diff(feas["mean_quality"]) >= -1e-9)  # Σ quality ties are up to τ = 1e-9·Σ max q
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


@pytest.mark.parametrize("quality, cost, want", [
    ([1.0, 1.0, 0.5], [3.0, 1.0, 0.0], "b1"),              # top tie → cheaper
    ([0.2, 0.2, 0.2], [2.0, 2.0, 2.0], "b0"),              # full tie → first name
    ([0.5, 0.9, 0.9], [0.0, 4.0, 4.0], "b1"),              # tie on the top only, not with the free b0
    ([0.1 + 0.2, 0.3, 0.0], [2.0, 1.0, 0.0], "b1"),        # 0.30000000000000004 vs 0.3: float noise → tie
    ([0.300001, 0.3, 0.0], [2.0, 1.0, 0.0], "b0"),         # a real 1e-6 difference wins however costly
    ([0.9, 0.5], [0.0, 5.0], "b0"),                        # the best is also the cheapest
    ([0.7], [9.0], "b0"),                                  # a single baseline
])
def test_quality_oracle_per_dialogue_by_hand(quality, cost, want):
    assert _choices(_one_dialogue(quality, cost)) == [want]


def test_budget_oracle_prefers_the_cheaper_of_equal_quality_solutions():
    # d0: x (0, 0) or y (1, 2); d1: x (0, 0), y (.5, .5) or z (1, 1.5).  Budget 2, all choices:
    # (x,x) q 0 c 0; (x,y) .5 .5; (x,z) 1 1.5; (y,x) 1 2; (y,y) 1.5 2.5 ✗; (y,z) 2 3.5 ✗.
    # Best quality 1, reached by (x,z) at cost 1.5 and (y,x) at cost 2 → (x,z).  (d0's z, at
    # quality 0 and cost 9, only completes the grid.)
    table = pd.DataFrame({"dialogue_id": ["d0"] * 3 + ["d1"] * 3, "baseline": ["x", "y", "z"] * 2,
                          "quality": [0.0, 1.0, 0.0, 0.0, 0.5, 1.0], "cost": [0.0, 2.0, 9.0, 0.0, 0.5, 1.5]})
    inst = oracle_instance(table)
    res = budget_oracle(inst, 2.0)
    assert res.choices(inst)["baseline"].tolist() == ["x", "z"]
    assert (res.mean_quality, res.total_cost) == (0.5, 1.5)


def test_budget_oracle_fixed_order_between_identical_dialogues():
    # d0 = d1 = {a (0, 0), b (1, 1)}, budget 1: (a, b) and (b, a) tie on quality 1 and cost 1;
    # the lexicographically smaller vector of baseline indices in dialogue order is (a, b).
    table = pd.DataFrame({"dialogue_id": ["d0", "d0", "d1", "d1"], "baseline": ["a", "b"] * 2,
                          "quality": [0.0, 1.0] * 2, "cost": [0.0, 1.0] * 2})
    assert _choices(table, 1.0) == ["a", "b"]
    # and with three identical dialogues and budget 2: (a, b, b)
    three = pd.concat([table, table.iloc[:2].assign(dialogue_id="d2")], ignore_index=True)
    assert _choices(three, 2.0) == ["a", "b", "b"]


def test_budget_oracle_quality_ties_are_up_to_float_noise():
    # Upgrading d0 gains 0.1 + 0.2 = 0.30000000000000004 for 1; upgrading d1 gains 0.3 for 0.5.
    # Budget 1 allows one upgrade; the gains differ by 5.6e-17 < τ = 2e-9, so the cheaper d1 wins.
    table = pd.DataFrame({"dialogue_id": ["d0", "d0", "d1", "d1"], "baseline": ["a", "b"] * 2,
                          "quality": [0.0, 0.1 + 0.2, 0.0, 0.3], "cost": [0.0, 1.0, 0.0, 0.5]})
    assert _choices(table, 1.0) == ["a", "b"]
    # a real difference (0.300001 vs 0.3) is not a tie: the dearer, better d0 upgrade wins
    table.loc[1, "quality"] = 0.300001
    assert _choices(table, 1.0) == ["b", "a"]


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
