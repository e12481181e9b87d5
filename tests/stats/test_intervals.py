"""Cluster-bootstrap cell intervals: hand-worked means, the resampling identity, insufficient n."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.stats.bootstrap import bootstrap_indices
from trace_crs.stats.intervals import (MIN_CLUSTERS, Derived, cell_intervals, cluster_mean_ci, cluster_statistic_ci,
                                      statistic_intervals, turn_mean)


def test_mean_is_over_defined_rows():
    # d1: 1, 0 ; d2: 1, NaN -> defined rows 1, 0, 1 -> 2/3
    frame = pd.DataFrame({"dialogue_id": ["d1", "d1", "d2", "d2"], "m": [1.0, 0.0, 1.0, np.nan]})
    cell = cluster_mean_ci(frame, "m", n_boot=50)
    assert cell["mean"] == pytest.approx(2 / 3)
    assert (cell["n_rows"], cell["n_clusters"]) == (3, 2)
    assert cell["sufficient"] is False  # 2 < MIN_CLUSTERS


def test_replicates_match_explicit_resampling():
    """Interval = percentile of ratio means over dialogues drawn with the shared index matrix."""
    rng = np.random.default_rng(0)
    ids = [f"d{i:02d}" for i in range(30)]
    rows = [(d, float(v)) for d in ids for v in rng.integers(0, 2, size=int(rng.integers(1, 4)))]
    frame = pd.DataFrame(rows, columns=["dialogue_id", "m"])
    cell = cluster_mean_ci(frame, "m", n_boot=200, seed=7)
    by = {d: frame.loc[frame["dialogue_id"] == d, "m"].to_numpy() for d in sorted(ids)}
    order = sorted(ids)
    reps = []
    for draw in bootstrap_indices(len(order), 200, 7):
        vals = np.concatenate([by[order[i]] for i in draw])
        reps.append(vals.mean())
    low, high = np.quantile(reps, [0.025, 0.975])
    assert cell["ci_low"] == pytest.approx(low) and cell["ci_high"] == pytest.approx(high)
    assert cell["sufficient"] is True and cell["n_clusters"] == 30 >= MIN_CLUSTERS


def test_degenerate_interval_is_insufficient():
    frame = pd.DataFrame({"dialogue_id": [f"d{i}" for i in range(40)], "m": [1.0] * 40})
    cell = cluster_mean_ci(frame, "m", n_boot=100)
    assert cell["ci_low"] == cell["ci_high"] == 1.0 and cell["sufficient"] is False


def test_no_defined_rows():
    cell = cluster_mean_ci(pd.DataFrame({"dialogue_id": ["d1"], "m": [np.nan]}), "m")
    assert np.isnan(cell["mean"]) and cell["n_rows"] == 0 and cell["sufficient"] is False


def test_cell_intervals_reads_turn_then_dialogue_frames():
    per_turn = pd.DataFrame({"run": "closed", "baseline": "tfidf", "dialogue_id": ["d1", "d2"], "recall@1": [1.0, 0.0]})
    per_dialogue = pd.DataFrame({"run": "closed", "baseline": "tfidf", "dialogue_id": ["d1", "d2"], "tsr": [1.0, 1.0]})
    out = cell_intervals(per_turn, per_dialogue, ["recall@1", "tsr", "absent"], n_boot=20)
    assert list(out["metric"]) == ["recall@1", "tsr"]
    assert list(out["mean"]) == [0.5, 1.0]


def test_rejection_recovery_interval_pools_episodes():
    """Hand-worked: d1 recovers 1 of 2 episodes, d2 1 of 1, d3 has none -> pooled 2/3 (the mean
    of per-dialogue rates would be 3/4); every replicate is a pooled ratio over resampled
    dialogues."""
    per_dialogue = pd.DataFrame({"run": "r", "baseline": "b", "dialogue_id": ["d1", "d2", "d3"],
                                 "rejection_recovery": [0.5, 1.0, np.nan],
                                 "recovery_hits": [1, 1, 0], "recovery_episodes": [2, 1, 0]})
    per_turn = pd.DataFrame({"run": [], "baseline": [], "dialogue_id": []})
    cell = cell_intervals(per_turn, per_dialogue, ["rejection_recovery"], n_boot=200, seed=3).iloc[0]
    assert cell["mean"] == pytest.approx(2 / 3)
    assert (cell["n_rows"], cell["n_clusters"]) == (3, 2)   # 3 episodes over 2 dialogues
    hits, eps = np.array([1.0, 1.0]), np.array([2.0, 1.0])
    reps = [hits[d].sum() / eps[d].sum() for d in bootstrap_indices(2, 200, 3)]
    assert (cell["ci_low"], cell["ci_high"]) == pytest.approx(tuple(np.quantile(reps, [0.025, 0.975])))


# --- cluster_statistic_ci: an arbitrary statistic of a per-turn frame --------------------------

def _turns(n_dialogues: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(f"d{i:02d}", t, float(rng.integers(0, 2)), float(rng.random()))
            for i in range(n_dialogues) for t in range(int(rng.integers(1, 4)))]
    return pd.DataFrame(rows, columns=["dialogue_id", "turn_id", "m", "x"])


def test_statistic_mean_equals_cluster_mean_ci():
    """Independent method: a mean over turns through the general resampler (rows gathered per
    replicate) equals the ratio estimator of cluster_mean_ci (matrix product of sums and counts)."""
    frame = _turns(30).sample(frac=1.0, random_state=1)   # row order must not matter
    general = cluster_statistic_ci(frame, turn_mean("m"), n_boot=300, seed=5)
    ratio = cluster_mean_ci(frame, "m", n_boot=300, seed=5)
    assert general["estimate"] == pytest.approx(ratio["mean"])
    for key in ("ci_low", "ci_high"):
        assert general[key] == pytest.approx(ratio[key])
    for key in ("n_rows", "n_clusters", "sufficient"):
        assert general[key] == ratio[key]


def test_statistic_replicates_match_explicit_resampling():
    """A non-mean statistic (Pearson r): each replicate is the statistic of the concatenated rows
    of the drawn dialogues, drawn with the shared index matrix over sorted ids."""
    frame = _turns(25, seed=3)
    r = lambda f: float(np.corrcoef(f["m"], f["x"])[0, 1])   # noqa: E731
    cell = cluster_statistic_ci(frame, r, n_boot=150, seed=11)
    order = sorted(frame["dialogue_id"].unique())
    reps = [r(pd.concat([frame[frame["dialogue_id"] == order[i]] for i in draw]))
            for draw in bootstrap_indices(len(order), 150, 11)]
    low, high = np.nanquantile(reps, [0.025, 0.975])
    assert (cell["ci_low"], cell["ci_high"]) == pytest.approx((low, high))
    assert cell["estimate"] == pytest.approx(r(frame))
    assert cell["ci_low"] <= cell["estimate"] <= cell["ci_high"] and cell["sufficient"] is True


def test_statistic_on_three_dialogues_is_insufficient():
    # Hand-worked gap: mean GS (1 + 0.5 + 0) / 3 = 0.5 minus mean entailment (0.5 + 0.5 + 0) / 3 = 1/3
    frame = pd.DataFrame({"dialogue_id": ["a", "b", "c"], "gs": [1.0, 0.5, 0.0], "ent": [0.5, 0.5, 0.0]})
    cell = cluster_statistic_ci(frame, lambda f: turn_mean("gs")(f) - turn_mean("ent")(f), n_boot=100)
    assert cell["estimate"] == pytest.approx(1 / 6)
    assert (cell["n_rows"], cell["n_clusters"], cell["sufficient"]) == (3, 3, False)


def test_statistic_undefined_estimate_or_degenerate_interval_is_insufficient():
    constant = pd.DataFrame({"dialogue_id": [f"d{i:02d}" for i in range(30)], "m": 1.0, "x": 2.0})
    cell = cluster_statistic_ci(constant, turn_mean("m"), n_boot=50)
    assert cell["ci_low"] == cell["ci_high"] == 1.0 and cell["sufficient"] is False
    cell = cluster_statistic_ci(constant, lambda f: float("nan"), n_boot=50)
    assert np.isnan(cell["estimate"]) and np.isnan(cell["ci_low"]) and cell["sufficient"] is False
    empty = cluster_statistic_ci(constant.iloc[:0], turn_mean("m"), n_boot=50)
    assert empty["n_clusters"] == 0 and empty["sufficient"] is False


def test_statistic_intervals_rows_define_the_clusters():
    """``rows`` restricts the turns (and so the dialogues counted in n); missing ``needs`` skip."""
    frame = _turns(24).assign(baseline="b")
    frame["tier"] = np.where(frame["dialogue_id"] < "d10", "easy", "hard")   # d00–d09 easy
    columns = {"Easy": Derived(turn_mean("m"), rows=lambda f: f["tier"] == "easy", needs=("m",)),
               "All": Derived(turn_mean("m")), "Absent": Derived(turn_mean("zzz"), needs=("zzz",))}
    out = statistic_intervals(frame, columns, n_boot=50).set_index("column")
    assert list(out.index) == ["Easy", "All"]
    easy = frame[frame["tier"] == "easy"]
    assert out.at["Easy", "estimate"] == pytest.approx(easy["m"].mean())
    assert (out.at["Easy", "n_clusters"], out.at["Easy", "n_rows"]) == (10, len(easy))
    assert bool(out.at["Easy", "sufficient"]) is False and out.at["All", "n_clusters"] == 24
