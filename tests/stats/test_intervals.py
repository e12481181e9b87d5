"""Cluster-bootstrap cell intervals: hand-worked means, the resampling identity, insufficient n."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.stats.bootstrap import bootstrap_indices
from trace_crs.stats.intervals import MIN_CLUSTERS, cell_intervals, cluster_mean_ci


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
