"""Paired t, correlations with Fisher-z CIs, and per-turn spreads, checked by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.stats.paired import correlations, fisher_ci, paired_t
from trace_crs.stats.spreads import per_turn_spread


def test_paired_t_by_hand_and_nan_exclusion():
    frame = pd.DataFrame({"dialogue_id": ["d1", "d2", "d3", "d4"] * 2, "baseline": ["a"] * 4 + ["b"] * 4,
                          "m": [1.0, 2.0, 4.0, 9.0, 0.0, 0.0, 1.0, np.nan]})
    got = paired_t(frame, "a", "b", "m")
    diffs = np.array([1.0, 2.0, 3.0])  # d4 excluded (undefined for b)
    t = diffs.mean() / (diffs.std(ddof=1) / np.sqrt(3))  # = 2 / (1/√3) = 2√3
    assert got["t"] == pytest.approx(t) and got["t"] == pytest.approx(2 * np.sqrt(3))
    assert (got["n"], got["n_excluded"], got["mean_diff"]) == (3, 1, pytest.approx(2.0))
    with pytest.raises(ValueError, match="baseline"):
        paired_t(frame, "a", "zzz", "m")


def test_correlations_and_fisher_ci_by_hand():
    x, y = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]
    out = correlations(x, y).set_index("method")
    r = np.corrcoef(x, y)[0, 1]
    assert out.loc["pearson", "r"] == pytest.approx(r)
    assert out.loc["spearman", "r"] == pytest.approx(1 - 6 * 6 / (6 * 35))  # Σd² = 6 → 0.828…
    assert out.loc["kendall", "r"] == pytest.approx((12 - 3) / 15)  # 12 concordant, 3 discordant
    half = 1.959963984540054 / np.sqrt(3)
    assert out.loc["pearson", "ci_low"] == pytest.approx(np.tanh(np.arctanh(r) - half))
    assert np.isnan(fisher_ci(0.5, 3)[0])  # n − 3 = 0
    const = correlations([1, 1, 1, 1], [1, 2, 3, 4])
    assert const["r"].isna().all()
    with pytest.raises(ValueError, match="NaN"):
        correlations([1, np.nan, 2], [1, 2, 3])


def test_spread_and_cluster_se_by_hand():
    # baseline a: d1 turns [1, 1], d2 turns [0]; mean 2/3, sd of [1,1,0] = √(1/3)
    frame = pd.DataFrame({"dialogue_id": ["d1", "d1", "d2"], "baseline": "a", "gs": [1.0, 1.0, 0.0]})
    row = per_turn_spread(frame, metrics=("gs",)).iloc[0]
    assert row["mean"] == pytest.approx(2 / 3) and row["sd"] == pytest.approx(np.sqrt(1 / 3))
    # residuals S_d − ȳ N_d: 2 − 4/3 = 2/3, 0 − 2/3 = −2/3 → se_c² = 2 · (8/9) / 9
    assert row["se_cluster"] == pytest.approx(np.sqrt(2 * (8 / 9) / 9))
    assert row["design_effect"] == pytest.approx((2 * 8 / 81) / (1 / 9))
    assert (row["n_turns"], row["n_dialogues"]) == (3, 2)
    with pytest.raises(ValueError, match="missing column"):
        per_turn_spread(frame, metrics=("cd",))
