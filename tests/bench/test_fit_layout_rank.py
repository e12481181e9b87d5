"""bench/bench_fit_layout.py's rank of the reference place, worked by hand."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_fit_layout as bench  # noqa: E402


def test_rejected_places_go_last_and_a_tie_counts_against_the_reference():
    scores = {"a": -1.0, "b": -0.5, "c": -1.0, "d": -2.0}
    assert bench.gold_rank(scores, rejected={"b"}, gold={"a"}) == 2      # b rejected → last; c ties a
    assert bench.gold_rank(scores, rejected=set(), gold={"a"}) == 3      # b above, c tied
    assert bench.gold_rank(scores, rejected=set(), gold={"a", "b"}) == 1  # the best-placed reference counts
    assert bench.gold_rank(scores, rejected=set(), gold={"d"}) == 4


def test_the_second_layout_asks_about_one_place_after_every_card_and_the_conversation():
    messages = bench.v2_messages("[p1] Luigi\n[p2] Roma", "Traveler: pasta", "[p2] Roma")
    assert messages[1]["content"] == ("Places:\n[p1] Luigi\n[p2] Roma\n\nConversation:\nTraveler: pasta\n\n"
                                      "Does this place fit the request: [p2] Roma? Answer yes or no.")
