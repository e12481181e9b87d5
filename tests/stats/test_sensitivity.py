"""Sensitivity functions on tiny frames with hand-computed expectations."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.stats.breakdowns import difficulty_breakdown, pool_size_breakdown
from trace_crs.stats.cgs_variants import cgs_variant_sensitivity
from trace_crs.stats.checks import anti_gaming, metric_independence
from trace_crs.stats.sweeps import bimodality, fuzzy_threshold_sensitivity, spatial_threshold_sensitivity


def _scores(threshold):
    """A tiny callable scorer: baseline x passes quotes with match .85, y with .95."""
    match = {"x": [0.85, 0.85], "y": [0.95, 1.0]}
    rows = [{"baseline": b, "gs": float(m >= (1.0 if threshold == "exact" else threshold))}
            for b, ms in match.items() for m in ms]
    return pd.DataFrame(rows)


def test_fuzzy_sweep_with_callable():
    out = fuzzy_threshold_sensitivity(_scores).set_index(["setting", "baseline"])
    # x: 1 at .7/.8, 0 at .9/exact; y: 1 at .7/.8/.9, 0.5 at exact (only 1.0 ≥ 1.0)
    assert out.loc[(0.9, "x"), "value"] == 0.0 and out.loc[(0.8, "x"), "value"] == 1.0
    assert out.loc[("exact", "y"), "value"] == 0.5
    assert out.loc[("exact", "y"), "delta_vs_default"] == -0.5
    assert np.isnan(out.loc[(0.8, "x"), "rank_rho_vs_default"])  # both baselines tie at default → constant
    assert out.loc[(0.9, "y"), "n"] == 2


def test_spatial_sweep_with_precomputed_mapping_and_rank_rho():
    frames = {km: pd.DataFrame({"baseline": ["a", "b", "c"], "spatial_coherence": vals})
              for km, vals in {1.0: [0.1, 0.2, 0.3], 1.5: [0.2, 0.3, 0.4], 2.0: [0.3, 0.4, 0.5],
                               3.0: [0.6, 0.5, 0.4], 5.0: [0.9, 0.9, np.nan]}.items()}
    out = spatial_threshold_sensitivity(frames)
    rho = out.groupby("setting")["rank_rho_vs_default"].first()
    assert rho[1.0] == pytest.approx(1.0) and rho[3.0] == pytest.approx(-1.0)
    five = out[out["setting"] == 5.0].set_index("baseline")
    assert five.loc["c", "n"] == 0 and np.isnan(five.loc["c", "value"])


def test_sweep_rejects_missing_default_and_changed_baselines():
    with pytest.raises(ValueError, match="default"):
        fuzzy_threshold_sensitivity(_scores, settings=(0.7, 0.9))
    frames = {2.0: pd.DataFrame({"baseline": ["a"], "spatial_coherence": [1.0]}),
              1.0: pd.DataFrame({"baseline": ["b"], "spatial_coherence": [1.0]})}
    with pytest.raises(ValueError, match="differ"):
        spatial_threshold_sensitivity(frames, settings=(1.0, 2.0))


def test_bimodality_shares_and_coefficient():
    probs = pd.DataFrame({"baseline": ["a"] * 6, "prob": [0.05, 0.1, 0.95, 0.9, 0.5, 0.3]})
    row = bimodality(probs).iloc[0]
    assert (row["share_low"], row["share_borderline"], row["share_high"]) == pytest.approx((2 / 6, 2 / 6, 2 / 6))
    x = probs["prob"].to_numpy()
    n, m, s = x.size, x.mean(), x.std(ddof=0)
    g1 = ((x - m) ** 3).mean() / s ** 3
    g2 = ((x - m) ** 4).mean() / s ** 4 - 3
    big_g = np.sqrt(n * (n - 1)) / (n - 2) * g1
    big_k = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6)
    assert row["sarle_b"] == pytest.approx((big_g ** 2 + 1) / (big_k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    with pytest.raises(ValueError, match="probability"):
        bimodality(pd.DataFrame({"baseline": ["a"], "prob": [1.5]}))


def test_cgs_variants_by_hand():
    # a: gs 1, cd .04, pc .25 → default 0 (gate 0.05 fails) but 0.03 gate passes: 1·1·max(.25,.5) = .5
    # b: gs .8, cd .2, pc 1 → default .8; additive (0.8 + 1 + 1)/3; harmonic 3/(1/.8 + 1 + 1)
    per_turn = pd.DataFrame({"baseline": ["a", "b"], "gs": [1.0, 0.8], "cd": [0.04, 0.2], "pc": [0.25, 1.0]})
    out = cgs_variant_sensitivity(per_turn).set_index(["variant", "baseline"])["value"]
    assert out[("default", "a")] == 0.0 and out[("default", "b")] == pytest.approx(0.8)
    assert out[("cd_gate_0.03", "a")] == pytest.approx(0.5)
    assert out[("no_pc_floor", "b")] == pytest.approx(0.8)
    assert out[("sqrt_pc", "b")] == pytest.approx(0.8)
    assert out[("geometric", "b")] == pytest.approx(0.8 ** (1 / 3))
    assert out[("additive", "a")] == pytest.approx((1 + 0 + 0.5) / 3)
    assert out[("harmonic", "a")] == 0.0
    assert out[("harmonic", "b")] == pytest.approx(3 / (1 / 0.8 + 2))
    rho = cgs_variant_sensitivity(per_turn).groupby("variant")["spearman_vs_default"].first()
    assert rho["cd_gate_0.03"] == pytest.approx(1.0)  # a .5 < b .8, same order as default 0 < .8


def test_anti_gaming_and_independence_against_numpy():
    per_turn = pd.DataFrame({"baseline": ["a"] * 4 + ["b"] * 3, "cd": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3],
                             "gs": [1.0, 0.5, 1.0, 0.0, 1, 1, 1.0], "pc": [0.0, 1, 0.5, 0.25, 1, 1, 0.0]})
    ag = anti_gaming(per_turn).set_index("baseline")
    assert ag.loc["a", "pearson_r"] == pytest.approx(np.corrcoef([0.1, 0.2, 0.3, 0.4], [1, 0.5, 1, 0])[0, 1])
    assert np.isnan(ag.loc["b", "pearson_r"])  # constant GS
    assert ag.loc["a", "mean_cd"] == pytest.approx(0.25)
    ind = metric_independence(per_turn).set_index(["metric_a", "metric_b"])
    ranks = per_turn[["gs", "cd"]].rank()
    assert ind.loc[("gs", "cd"), "spearman_rho"] == pytest.approx(np.corrcoef(ranks["gs"], ranks["cd"])[0, 1])
    assert ind.loc[("gs", "cd"), "n_turns"] == 7


def test_breakdowns_by_hand():
    per_turn = pd.DataFrame({"baseline": ["a"] * 4, "difficulty": ["hard", "easy", "easy", "expert"],
                             "pool": [8, 8, 16, 16], "recall@1": [1.0, 0.0, 1.0, 1.0],
                             "recall@3": [1.0] * 4, "gs": [1.0, 0.5, 0.5, 0.0]})
    diff = difficulty_breakdown(per_turn)
    assert diff["difficulty"].astype(str).tolist() == ["easy", "hard", "expert"]
    assert diff["value"].tolist() == [0.5, 1.0, 1.0]
    pool = pool_size_breakdown(per_turn).set_index(["pool", "metric"])
    assert pool.loc[(8, "gs"), "value"] == 0.75 and pool.loc[(16, "recall@1"), "n_turns"] == 2
    with pytest.raises(ValueError, match="unknown difficulty"):
        difficulty_breakdown(per_turn.assign(difficulty="insane"))


def test_anti_gaming_says_why_r_is_undefined():
    """Hand-worked: GS constant (a), CD constant (b), two turns (c), both varying (d, r = 1 by construction)."""
    per_turn = pd.DataFrame({
        "baseline": ["a"] * 3 + ["b"] * 3 + ["c"] * 2 + ["d"] * 3,
        "cd": [0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.1, 0.2, 0.1, 0.2, 0.3],
        "gs": [1.0, 1.0, 1.0, 0.5, 0.7, 0.9, 0.5, 0.6, 0.2, 0.4, 0.6],
    })
    ag = anti_gaming(per_turn).set_index("baseline")
    assert ag["undefined"].to_dict() == {"a": "GS the same on every turn", "b": "CD the same on every turn",
                                         "c": "fewer than 3 turns", "d": ""}
    assert ag.loc[["a", "b", "c"], "pearson_r"].isna().all() and ag.at["d", "pearson_r"] == pytest.approx(1.0)
