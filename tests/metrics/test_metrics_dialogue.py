import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from worked import dialogue, predictions, turn  # noqa: E402

from trace_crs.metrics import dialogue as dlg
from trace_crs.metrics.score import score_predictions


def t(tid, role, action):
    return {"turn_id": tid, "role": role, "action": action}


@pytest.mark.parametrize("hits,tsr,t2r", [
    ([1.0], 1.0, 1.0), ([0.0, 1.0, 0.0], 1.0, 2.0), ([0.0, 0.0], 0.0, 3.0),  # never hits: n + 1
    ([0.0, 0.0, 0.0, 1.0], 1.0, 4.0)])
def test_tsr_t2r(hits, tsr, t2r):
    assert dlg.task_success(hits) == tsr
    assert dlg.turns_to_first_hit(hits) == t2r


def test_no_scored_turns_is_nan():
    assert math.isnan(dlg.task_success([])) and math.isnan(dlg.turns_to_first_hit([]))


def test_recovery_turns():
    turns = [t(1, "user", "greet_and_seek"), t(2, "system", "recommend"), t(3, "user", "reject_and_refine"),
             t(4, "system", "ask_preference"), t(5, "user", "provide_preference"), t(6, "system", "compare"),
             t(7, "user", "reject_and_refine"), t(8, "system", "farewell")]
    # first episode recovers at the compare turn 6; the second has no later recommend/compare turn
    assert dlg.recovery_turns(turns) == [6]
    assert dlg.recovery_turns(turns[:3]) == []


def test_rejection_recovery():
    assert dlg.rejection_recovery({2: 0.0, 4: 1.0, 6: 0.0}, [4, 6]) == 0.5
    assert math.isnan(dlg.rejection_recovery({2: 1.0}, []))  # no rejection in dialogue


def test_recovery_pools_episodes_over_scored_dialogues(kb):
    """Hand-worked: dialogue A has one rejection episode, recovered (P2 is gold at turn 4);
    dialogue B has two, the first recovered (turn 4), the second not (turn 6 ranks P5 first,
    gold P3).  Paper App. J: "the fraction of reject_and_refine episodes whose immediately
    following recommend/compare turn hits" = (1 + 1) / (1 + 2) = 2/3 over the corpus, while
    the per-dialogue rates are 1 and 1/2 (their mean, 3/4, is not the metric)."""
    def episode_turns(n):
        out = [turn(1, "user", "greet_and_seek", "Dinner."), turn(2, "system", "recommend", "P1.", gold=["P1"])]
        for i, gold in zip(range(n), ("P2", "P3")):
            out += [turn(3 + 2 * i, "user", "reject_and_refine", "No."),
                    turn(4 + 2 * i, "system", "recommend", f"{gold}.", gold=[gold])]
        return out

    a, b = dialogue("crs_yelp_00011", episode_turns(1)), dialogue("crs_yelp_00012", episode_turns(2))
    preds = predictions([(a["dialogue_id"], 2, ["P5"]), (a["dialogue_id"], 4, ["P2"]),
                         (b["dialogue_id"], 2, ["P5"]), (b["dialogue_id"], 4, ["P2"]), (b["dialogue_id"], 6, ["P5"])])
    s = score_predictions(kb, [a, b], preds)
    per = s.per_dialogue.set_index("dialogue_id")
    assert per["rejection_recovery"].tolist() == [1.0, 0.5]
    assert per["recovery_hits"].tolist() == [1, 1] and per["recovery_episodes"].tolist() == [1, 2]
    assert s.aggregate["metrics"]["rejection_recovery"] == pytest.approx(2 / 3)
