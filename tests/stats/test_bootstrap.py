"""Paired cluster bootstrap vs a brute-force loop written here."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from trace_crs.stats.bootstrap import TABLE21_PAIRS, bootstrap_indices, bootstrap_pairs, resample_weights


def _frame(seed: int = 3, n_dialogues: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_dialogues):
        for t in range(1 + d % 3):  # unequal cluster sizes
            for base, shift in (("a", 0.3), ("b", 0.0)):
                rows.append({"dialogue_id": f"d{d:02d}", "turn_id": 2 * t + 2, "baseline": base,
                             "m": float(rng.random() < 0.4 + shift)})
    return pd.DataFrame(rows)


def _brute(frame: pd.DataFrame, n_boot: int, seed: int) -> tuple[float, float, float, float]:
    ids = sorted(frame["dialogue_id"].unique())
    idx = np.random.default_rng(seed).choice(len(ids), size=(n_boot, len(ids)))
    stats = []
    for row in idx:
        parts = [frame[frame["dialogue_id"] == ids[i]] for i in row]
        sample = pd.concat(parts)
        means = sample.groupby("baseline")["m"].mean()
        stats.append(means["a"] - means["b"])
    stats = np.array(stats)
    full = frame.groupby("baseline")["m"].mean()
    below, above = (stats <= 0).sum(), (stats >= 0).sum()
    p = min(1.0, 2 * (1 + min(below, above)) / (n_boot + 1))
    return full["a"] - full["b"], np.percentile(stats, 2.5), np.percentile(stats, 97.5), p


def test_matches_brute_force_loop():
    frame = _frame()
    got = bootstrap_pairs(frame, [("a", "b", "m")], n_boot=200, seed=7, min_clusters=1).iloc[0]
    delta, lo, hi, p = _brute(frame, 200, 7)
    assert got["delta"] == pytest.approx(delta)
    assert got["ci_low"] == pytest.approx(lo)
    assert got["ci_high"] == pytest.approx(hi)
    assert got["p_value"] == pytest.approx(p)


def test_same_seed_identical_and_other_seed_differs():
    frame = _frame()
    one = bootstrap_pairs(frame, [("a", "b", "m")], n_boot=100, seed=1)
    assert one.equals(bootstrap_pairs(frame, [("a", "b", "m")], n_boot=100, seed=1))
    assert not one.equals(bootstrap_pairs(frame, [("a", "b", "m")], n_boot=100, seed=2))


def test_identical_baselines_give_zero_delta_and_p_one():
    frame = _frame()
    same = frame[frame["baseline"] == "b"].assign(baseline="a")
    got = bootstrap_pairs(pd.concat([frame[frame["baseline"] == "b"], same]), [("a", "b", "m")], n_boot=50).iloc[0]
    assert (got["delta"], got["ci_low"], got["ci_high"]) == (0.0, 0.0, 0.0)
    # a collapsed interval is no evidence: no p-value, never significant
    assert np.isnan(got["p_value"]) and not got["significant"] and got["verdict"] == "insufficient n"


@pytest.mark.parametrize("n_dialogues", [1, 3])
def test_too_few_clusters_say_insufficient_n(n_dialogues):
    """One dialogue: every replicate equals Δ and a naive p would be 2/(B+1); three: still too few."""
    frame = _frame(n_dialogues=n_dialogues)
    frame.loc[frame["baseline"] == "a", "m"] = 1.0
    frame.loc[frame["baseline"] == "b", "m"] = 0.0
    got = bootstrap_pairs(frame, [("a", "b", "m")], n_boot=200).iloc[0]
    assert got["delta"] == 1.0 and got["n_dialogues"] == n_dialogues
    assert got["verdict"] == "insufficient n" and np.isnan(got["p_value"]) and not got["significant"]


def test_enough_clusters_give_a_verdict():
    frame = _frame(seed=5, n_dialogues=60)
    got = bootstrap_pairs(frame, [("a", "b", "m")], n_boot=300).iloc[0]
    assert got["verdict"] in ("significant", "not resolved") and not np.isnan(got["p_value"])
    assert got["significant"] == (got["ci_low"] > 0 or got["ci_high"] < 0)


def test_hand_delta_on_unequal_clusters():
    # d1: a=[1,1], b=[0,0]; d2: a=[0], b=[1] → mean a = 2/3, mean b = 1/3 (turn-weighted)
    frame = pd.DataFrame({"dialogue_id": ["d1", "d1", "d2", "d1", "d1", "d2"], "baseline": list("aaabbb"),
                          "m": [1, 1, 0, 0, 0, 1.0]})
    got = bootstrap_pairs(frame, [("a", "b", "m")], n_boot=10).iloc[0]
    assert got["delta"] == pytest.approx(1 / 3)


def test_weights_count_multiplicities():
    idx = np.array([[0, 0, 2], [1, 2, 1]])
    assert resample_weights(idx, 3).tolist() == [[2, 0, 1], [0, 2, 1]]
    assert bootstrap_indices(4, 3, seed=0).shape == (3, 4)


def test_table21_pairs_are_eight_registry_keys():
    assert len(TABLE21_PAIRS) == 8
    assert ("dense", "tfidf", "cgs") in TABLE21_PAIRS


@pytest.mark.parametrize("mutate, message", [
    (lambda f: f[~((f["baseline"] == "b") & (f["dialogue_id"] == "d03"))], "d03"),
    (lambda f: f.assign(m=f["m"].where(f.index != 4, np.nan)), "field 'm'"),
    (lambda f: f[f["baseline"] == "a"], "baseline(s) ['b']"),
    (lambda f: f.drop(columns="m"), "missing column"),
])
def test_bad_input_is_a_clear_error(mutate, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        bootstrap_pairs(mutate(_frame()), [("a", "b", "m")], n_boot=10)


def test_empty_pairs_rejected():
    with pytest.raises(ValueError, match="no pairs"):
        bootstrap_pairs(_frame(), [], n_boot=10)
