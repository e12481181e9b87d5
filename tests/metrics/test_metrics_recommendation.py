import math
import sys
from pathlib import Path

import numpy as np
import pytest

from trace_crs.metrics import recommendation as rec
from trace_crs.metrics.score import score_predictions

sys.path.insert(0, str(Path(__file__).parent))
from worked import dialogue, predictions, turn  # noqa: E402

CASES = [  # gold, ranked, alts, recall@1, recall@3, hit@1, hit@3, mrr, mr@1, mr@3
    (["A"], ["A", "B", "C"], [], 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    (["A"], ["B", "C", "A"], ["B"], 0.0, 1.0, 0.0, 1.0, 1 / 3, 1.0, 1.0),
    (["A", "B"], ["B", "X", "A"], [], 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),   # compare, two gold: MR hit at k=1
    (["A", "B"], ["X", "C", "B"], ["C"], 0.0, 0.5, 0.0, 1.0, 1 / 3, 0.0, 1.0),  # alternative C in top-3: hit
    (["A"], [], ["B"], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),                  # empty prediction
    (["A"], ["B", "B", "A"], [], 0.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0),        # duplicate (tie) dropped
    (["A"], ["X", "Y", "Z", "A"], [], 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0),  # gold below top-3
]


@pytest.mark.parametrize("gold,ranked,alts,r1,r3,h1,h3,mrr,mr1,mr3", CASES)
def test_golden(gold, ranked, alts, r1, r3, h1, h3, mrr, mr1, mr3):
    assert rec.recall_at_k([gold], [ranked], 1)[0] == pytest.approx(r1)
    assert rec.recall_at_k([gold], [ranked], 3)[0] == pytest.approx(r3)
    assert rec.hit_at_k([gold], [ranked], 1)[0] == h1
    assert rec.hit_at_k([gold], [ranked], 3)[0] == h3
    assert rec.reciprocal_rank([gold], [ranked])[0] == pytest.approx(mrr)
    assert rec.multi_reference_recall_at_k([gold], [alts], [ranked], 1)[0] == pytest.approx(mr1)
    assert rec.multi_reference_recall_at_k([gold], [alts], [ranked], 3)[0] == pytest.approx(mr3)


def test_empty_gold_is_nan_and_empty_batch():
    assert math.isnan(rec.recall_at_k([[]], [["A"]], 1)[0])
    assert math.isnan(rec.reciprocal_rank([[]], [["A"]])[0])
    assert rec.recall_at_k([], [], 3).shape == (0,)


def test_recommended_and_turn_hits():
    assert rec.recommended(["A", "A", "B", "C"], 2) == ["A", "B"]
    assert rec.recommended(["A", "B"], 0) == ["A"]
    np.testing.assert_array_equal(rec.turn_hits([["B"], ["A", "B"], ["A"]], [["A", "B"], ["C", "B"], []]), [0, 1, 0])


def test_multi_reference_recall_on_a_worked_dialogue(kb):
    """Paper App. S: MR-Recall@k "counts a hit if the predicted top-k contains gold or any
    alternative; the denominator is unchanged".  Turn 2 recommends (gold P1, alternative P3),
    turn 4 compares (gold {P1, P2}, alternative P4), turn 6 compares (gold {P1, P2}).
    Predicted top-1: P3 (an alternative: MR hit, Recall 0), P2 (one of two gold: MR hit 1,
    not 1/2; Recall@1 = 1/2), P5 (neither: 0).  Alt-only aggregate: turns 2 and 4, both hits."""
    d = dialogue("crs_yelp_00021", [
        turn(1, "user", "greet_and_seek", "Dinner."), turn(2, "system", "recommend", "P3.", gold=["P1"], alts=["P3"]),
        turn(3, "user", "ask_compare", "Compare two?"),
        turn(4, "system", "compare", "P1 or P2.", gold=["P1", "P2"], alts=["P4"]),
        turn(5, "user", "ask_compare", "Two more?"), turn(6, "system", "compare", "P1 or P2.", gold=["P1", "P2"])])
    did = d["dialogue_id"]
    s = score_predictions(kb, [d], predictions([(did, 2, ["P3", "P5", "P6"]), (did, 4, ["P2", "P5", "P6"]),
                                                (did, 6, ["P5", "P6", "P7"])]))
    pt = s.per_turn.set_index("turn_id")
    assert pt["mr_recall@1"].tolist() == [1.0, 1.0, 0.0]
    assert pt["recall@1"].tolist() == [0.0, 0.5, 0.0]
    m = s.aggregate["metrics"]
    assert m["mr_recall@1"] == pytest.approx(2 / 3) and m["mr_recall@1_alt_only"] == 1.0
    assert m["recall@1"] == pytest.approx(0.5 / 3)
