import math

import numpy as np
import pytest

from trace_crs.metrics import recommendation as rec

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
