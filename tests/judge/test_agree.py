"""Meta-evaluation against hand-worked values and a synthetic panel of known correlation."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from trace_crs.errors import DataError
from trace_crs.judge.agree import (
    correlations,
    cost,
    coupling,
    factor_agreement,
    fisher_ci,
    overall_agreement,
    qwk,
    ranking_agreement,
    stability,
)
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import read_ratings


def test_qwk_hand_values():
    # observed off-diagonal (0,4),(4,0): sum w*O = 2; expected E = 1 in each corner: sum w*E = 2 -> 1 - 2/2
    assert qwk([0, 0, 4, 4], [0, 4, 0, 4]) == pytest.approx(0.0)
    # one (3,4) disagreement: sum w*O = 1/16; sum w*E = (1/4) * 56/16 = 0.875 -> 1 - (1/16)/0.875 = 13/14
    assert qwk([0, 1, 2, 3], [0, 1, 2, 4]) == pytest.approx(13 / 14)
    assert qwk([1, 2, 3], [1, 2, 3]) == 1.0 and math.isnan(qwk([2, 2], [2, 2])) and math.isnan(qwk([], []))


def test_tau_b_with_ties_hand_value():
    # pairs: C=4, D=0, one tie in x only, one tie in y only: tau_b = 4 / sqrt(5 * 5)
    got = correlations([1, 1, 2, 3, 4], [1, 2, 2, 3, 4])
    assert got["kendall_tau_b"] == pytest.approx(8 / math.sqrt(9 * 9))
    got = correlations([1, 2, 3, 4], [1, 3, 2, 4])
    assert got["kendall_tau_b"] == pytest.approx(4 / 6) and got["spearman"] == pytest.approx(0.8)
    assert math.isnan(correlations([1, 1, 1], [1, 2, 3])["pearson"])           # constant side: undefined


def test_fisher_interval_hand_value():
    # r = 0.5, n = 28: z = atanh(.5) = 0.549306, half = 1.959964 / 5 = 0.391993
    lo, hi = fisher_ci(0.5, 28, "pearson")
    assert (lo, hi) == (pytest.approx(math.tanh(0.549306 - 0.391993), abs=1e-6),
                        pytest.approx(math.tanh(0.549306 + 0.391993), abs=1e-6))
    assert all(math.isnan(v) for v in fisher_ci(0.5, 4, "kendall_tau_b"))


def test_synthetic_panel_recovers_known_correlation():
    rho, n = 0.6, 3000
    x, y = np.random.default_rng(42).multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n).T
    got = correlations(x, y)
    truth = {"pearson": rho, "spearman": 6 / np.pi * np.arcsin(rho / 2), "kendall_tau_b": 2 / np.pi * np.arcsin(rho)}
    for name, value in truth.items():                                          # population values of a normal pair
        assert got[f"{name}_lo"] < value < got[f"{name}_hi"], name
        assert got[name] == pytest.approx(value, abs=0.03)


def frame(ratings, system=None, overall=None, debate=None):
    df = pd.DataFrame(ratings, columns=FACTORS)
    df.insert(0, "dialogue_id", [f"d{i}" for i in range(len(df))])
    df["system"] = system if system is not None else "s"
    if overall is not None:
        df["overall"] = overall
    if debate is not None:
        df["debate"] = debate
    return df


def test_factor_agreement_identical_and_pooled():
    rng = np.random.default_rng(42)
    r = rng.integers(0, 5, size=(30, 12))
    got = factor_agreement(frame(r), frame(r)).set_index("factor")
    assert np.allclose(got.loc[list(FACTORS), "qwk"], 1.0) and got.loc["all factors", "n"] == 360
    shifted = np.clip(r + 1, 0, 4)
    got = factor_agreement(frame(r), frame(shifted)).set_index("factor")
    assert (got["qwk"] < 1).all() and (got["spearman"] > 0.8).all()


def test_coupling_over_66_pairs():
    base = np.arange(5)
    r = np.stack([base] * 11 + [np.array([0, 2, 1, 3, 4])], axis=1)
    got = coupling(frame(r))
    # 55 pairs with tau 1; 11 pairs with the swapped column: (9 concordant - 1 discordant) / 10 = 0.8
    assert got == {"mean_abs_tau_b": pytest.approx((55 + 11 * 0.8) / 66), "n_pairs": 66, "n_undefined": 0}
    r[:, 11] = 2                                                               # a constant factor: 11 pairs undefined
    assert coupling(frame(r))["n_pairs"] == 55


def test_ranking_stability_overall_and_cost():
    a = frame(np.array([[4] * 12, [2] * 12, [0] * 12]), system=["x", "y", "z"], overall=[4.0, 2.0, 0.0])
    b = frame(np.array([[3] * 12, [3] * 12, [1] * 12]), system=["x", "y", "z"], overall=[3.0, 2.5, 1.0])
    rank = ranking_agreement(a, b).set_index("factor")
    assert rank.loc["overall", "kendall_tau"] == pytest.approx(1.0)
    assert rank.loc["coherence", "kendall_tau"] == pytest.approx(2 / math.sqrt(3 * 2))   # tie in b: tau_b
    st = stability([a, b]).set_index("factor")
    # per dialogue sd (ddof=1) of (4,3), (2,3), (0,1) = 0.7071 each
    assert st.loc["coherence", "mean_sd"] == pytest.approx(math.sqrt(0.5)) and st.loc["coherence", "n"] == 3
    judged = a.assign(debate=[80.0, 50.0, 10.0])
    human = a[["dialogue_id"]].assign(overall=[90.0, 40.0, 20.0])
    ov = overall_agreement(judged, human).set_index("score")
    assert ov.loc["debate", "spearman"] == pytest.approx(1.0) and ov.loc["core_avg", "n"] == 3
    usage = judged.assign(mode=["per-factor", "per-factor", "one-call"], calls=[12, 12, 1], prompt_tokens=[100, 300, 50],
                          completion_tokens=[10, 30, 5], cost_usd=0.0, model_s=[1.0, 3.0, 0.5])
    c = cost(usage).set_index("mode")
    assert c.loc["per-factor", "total_tokens"] == 220 and c.loc["one-call", "calls"] == 1
    with pytest.raises(ValueError, match="two runs"):
        stability([a])


def test_read_ratings_files(tmp_path):
    p = tmp_path / "h.jsonl"
    p.write_text(json.dumps({"dialogue_id": "d1", "factors": {"coherence": 3}, "overall": 70}) + "\n")
    h = read_ratings(p, human=True)
    assert h.loc[0, "coherence"] == 3 and math.isnan(h.loc[0, "novelty"]) and h.loc[0, "overall"] == 70
    p.write_text(json.dumps({"dialogue_id": "d1", "factors": {"coherence": 5}}) + "\n")
    with pytest.raises(DataError, match="factors.coherence") as err:
        read_ratings(p, human=True)
    assert err.value.line == 1
    p.write_text(json.dumps({"dialogue_id": "d1", "factors": {"cohesion": 1}}) + "\n")
    with pytest.raises(DataError, match="unknown factor"):
        read_ratings(p, human=True)
