import math

import pytest

from trace_crs.metrics import dialogue as dlg


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
