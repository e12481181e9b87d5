"""Joint quality of the oracle table, hand-worked."""
from __future__ import annotations

import pandas as pd
import pytest

from trace_crs.oracle.quality import joint_quality, oracle_table


def frames():
    per_turn = pd.DataFrame({"dialogue_id": ["d1", "d1", "d2"], "baseline": ["a", "a", "a"],
                             "recall@1": [1.0, 0.0, 1.0], "cgs": [0.5, 0.5, 0.25]})
    per_dialogue = pd.DataFrame({"dialogue_id": ["d1", "d2"], "baseline": ["a", "a"],
                                 "rejection_recovery": [1.0, float("nan")]})
    return per_turn, per_dialogue


def test_joint_quality_means_defined_components():
    q = joint_quality(*frames()).set_index("dialogue_id")["quality"]
    assert q["d1"] == pytest.approx((0.5 + 0.5 + 1.0) / 3)   # R@1 0.5, CGS 0.5, recovery 1
    assert q["d2"] == pytest.approx((1.0 + 0.25) / 2)        # no rejection: mean of two


def test_oracle_table_rejects_unknown_cost():
    with pytest.raises(ValueError, match="cost must be one of"):
        oracle_table(*frames(), pd.DataFrame(), cost="euros")


def test_joint_quality_named_metrics_mix_turn_and_dialogue_levels():
    # ``stats oracle --quality recall@1,rejection_recovery``: d1 (1.0 + 0.0)/2 per turn, then with
    # recovery 1 → 0.75; d2 has no recovery → its R@1 mean alone
    q = joint_quality(*frames(), ["recall@1", "rejection_recovery"]).set_index("dialogue_id")["quality"]
    assert q.to_dict() == pytest.approx({"d1": 0.75, "d2": 1.0})


def test_joint_quality_keeps_a_dialogue_scored_at_one_level_only():
    per_turn, per_dialogue = frames()
    per_dialogue = pd.concat([per_dialogue, pd.DataFrame({"dialogue_id": ["d3"], "baseline": ["a"],
                                                          "rejection_recovery": [0.0]})])
    q = joint_quality(per_turn, per_dialogue).set_index("dialogue_id")["quality"]
    assert sorted(q.index) == ["d1", "d2", "d3"]
    assert q["d3"] == 0.0


def test_joint_quality_unknown_metric_is_an_error():
    with pytest.raises(ValueError, match=r"\['hit@9'\] are in neither"):
        joint_quality(*frames(), ["recall@1", "hit@9"])
