import math

import pytest

from trace_crs.baselines.ranking import minmax, rank_by_score
from trace_crs.baselines.text import STOP_WORDS, content_terms, tokenize


@pytest.mark.parametrize("cands, scores, rejected, expected", [
    (["a", "b", "c"], [1.0, 3.0, 2.0], set(), ["b", "c", "a"]),
    (["a", "b", "c"], [1.0, 3.0, 2.0], {"b"}, ["c", "a", "b"]),
    (["a", "b", "c"], [2.0, 2.0, 2.0], set(), ["a", "b", "c"]),          # ties keep pool order
    (["c", "b", "a"], [2.0, 2.0, 2.0], {"c", "a"}, ["b", "c", "a"]),     # rejected ties too
    ([], [], set(), []),
])
def test_rank_by_score(cands, scores, rejected, expected):
    assert rank_by_score(cands, scores, rejected) == expected


def test_rank_by_score_bad_input():
    with pytest.raises(ValueError, match="2 candidates but 1 scores"):
        rank_by_score(["a", "b"], [1.0])
    with pytest.raises(ValueError, match="NaN score for candidate"):
        rank_by_score(["a", "b"], [1.0, math.nan])


def test_minmax():
    assert minmax([2.0, 4.0, 3.0]).tolist() == [0.0, 1.0, 0.5]
    assert minmax([5.0, 5.0]).tolist() == [0.0, 0.0]
    assert minmax([]).size == 0


def test_text():
    assert len(STOP_WORDS) == 80
    assert tokenize("Don't STOP, 2 tacos!") == ["don't", "stop", "2", "tacos"]
    assert content_terms(["The sushi is great", "and the ramen"]) == {"sushi", "great", "ramen"}
    assert content_terms([]) == set()
