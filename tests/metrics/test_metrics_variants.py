"""Scoring variants of the Deviations diagnosis (App. J readings): hand-worked cases.

* ``ranked_list=response``: the prediction list is the POIs the response names (App. J
  "top-k prediction list", MRR "defaults to 0 if no gold POI is in the list");
* ``t2r_count``: which turns T2R counts (recommend/compare turns, every system turn, every turn);
* ``text_reference``: what BLEU/ROUGE-L compare (whole turns, quotes removed, quotes only).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.metrics.worked import dialogue, turn
from trace_crs.config import ConfigError, ScoreConfig
from trace_crs.metrics import dialogue as dlg
from trace_crs.metrics import recommendation as rec
from trace_crs.metrics import text as tx
from trace_crs.metrics.score import score_predictions


@pytest.mark.parametrize("text, expected", [
    ("I'd suggest Joe's Pizza. Another option is joe's.", ["b", "a"]),          # longer name wins the overlap
    ('Try Blue Door. "Better than Joe\'s Pizza" [R1]', ["c"]),                # names inside a quote do not count
    ("Here are two options: blue door and Joe's.", ["c", "a"]),                 # order of first mention, any case
    ("Nothing fits.", []),                                                      # no name: empty list
    ("Joe'sPizza is not a word boundary match", []),
])
def test_response_list(text, expected):
    names = {"a": "Joe's", "b": "Joe's Pizza", "c": "Blue Door"}
    assert rec.response_list(text, names) == expected


def _three_turn_dialogue():
    # u1 s2(ask) u3 s4(rec, gold P1) u5(reject) s6(rec, gold P2)
    return dialogue("d1", [turn(1, "user", "greet_and_seek", "hi"), turn(2, "system", "ask_preference", "?"),
                           turn(3, "user", "provide_preference", "x"), turn(4, "system", "recommend", "r", ["P1"]),
                           turn(5, "user", "reject_and_refine", "no"), turn(6, "system", "recommend", "r", ["P2"])])


@pytest.mark.parametrize("count, positions, n", [("recommend", [1, 2], 2), ("system", [2, 3], 3), ("all", [4, 6], 6)])
def test_counted_positions(count, positions, n):
    assert dlg.counted_positions(_three_turn_dialogue()["turns"], count) == (positions, n)


@pytest.mark.parametrize("hits, positions, n, expected", [
    ([0, 1], [2, 3], 3, 3.0),      # second recommend turn is the 3rd system turn
    ([1, 0], [4, 6], 6, 4.0),
    ([0, 0], [2, 3], 3, 4.0),      # never hit: counted length + 1
    ([0, 0], None, None, 3.0),     # defaults: the scored turns themselves
    ([], None, None, float("nan")),
])
def test_turns_to_first_hit_positions(hits, positions, n, expected):
    np.testing.assert_equal(dlg.turns_to_first_hit(hits, positions, n), expected)


def test_counted_positions_rejects_unknown():
    with pytest.raises(ValueError, match="t2r_count"):
        dlg.counted_positions([], "everything")


@pytest.mark.parametrize("view, expected", [
    ("turn", ['Try A. "good food" [R1] ok']),
    ("unquoted", ["Try A. ok"]),
    ("quotes", ["good food"]),
])
def test_text_view(view, expected):
    assert tx.text_view(['Try A. "good food" [R1] ok'], view) == expected


def test_score_config_rejects_unknown_variant():
    for key in ("ranked_list", "t2r_count", "text_reference"):
        with pytest.raises(ConfigError, match=key):
            ScoreConfig(**{key: "nonsense"})


def test_ranked_list_response_end_to_end(kb):
    """Turn 4 (gold P1): ranking [P2, P1, ...], response names P3 then P1 → full: R@1 0, MRR 1/2;
    response list [P3, P1]: R@1 0, R@3 1, MRR 1/2.  Turn 6 (gold P2): ranking [P2, ...] but the
    response names only P5 → full: R@1 1, MRR 1; response: R@1 0, MRR 0 (no gold in the list).
    TSR: full 1 (turn 6 hits), response 0.  T2R: full 2 (2nd recommend turn), response 3 (never hit,
    2 recommend turns + 1); with t2r_count=system full = 3 (turn 6 is the 3rd system turn)."""
    d = _three_turn_dialogue()
    rest = ["P3", "P4", "P5", "P6", "P7", "P8"]
    preds = [{"dialogue_id": "d1", "turn_id": 4, "ranked_poi_ids": ["P2", "P1", *rest],
              "text": "I'd suggest P3. Another option is P1.", "citations": []},
             {"dialogue_id": "d1", "turn_id": 6, "ranked_poi_ids": ["P2", "P1", *rest],
              "text": "Try P5.", "citations": []}]
    full = score_predictions(kb, [d], preds, ScoreConfig())
    resp = score_predictions(kb, [d], preds, ScoreConfig(ranked_list="response"))
    system = score_predictions(kb, [d], preds, ScoreConfig(t2r_count="system"))
    np.testing.assert_allclose(full.per_turn["recall@1"], [0, 1])
    np.testing.assert_allclose(full.per_turn["mrr"], [0.5, 1])
    np.testing.assert_allclose(resp.per_turn["recall@1"], [0, 0])
    np.testing.assert_allclose(resp.per_turn["recall@3"], [1, 0])
    np.testing.assert_allclose(resp.per_turn["mrr"], [0.5, 0])
    assert full.per_dialogue["tsr"].tolist() == [1.0] and resp.per_dialogue["tsr"].tolist() == [0.0]
    assert full.per_dialogue["t2r"].tolist() == [2.0] and resp.per_dialogue["t2r"].tolist() == [3.0]
    assert system.per_dialogue["t2r"].tolist() == [3.0]
    assert "ranked_list:response" in resp.aggregate["signature"]
    assert "ranked_list" not in full.aggregate["signature"]  # headline signatures unchanged
    assert dataclasses.asdict(ScoreConfig())["ranked_list"] == "full"
