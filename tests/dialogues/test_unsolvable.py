"""The unsolvable set: every item is checked by brute force over the whole KB; stratified; seeded."""
from __future__ import annotations

from collections import Counter

import pytest

from trace_crs.dialogues.constraints import satisfies
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.schema import check_dialogue
from trace_crs.dialogues.unsolvable import REASONS, build_unsolvable, satisfiable
from trace_crs.kb.synthetic import build_synthetic


@pytest.fixture(scope="module")
def world():
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    from trace_crs.kb.store import KB
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    return kb, generate_simulated(kb, 60, seed=42)


def test_items_have_no_satisfying_poi_anywhere_in_the_kb(world):
    kb, dialogues = world
    items = build_unsolvable(kb, dialogues, n=6 * len(REASONS), seed=42)
    assert len(items) == 6 * len(REASONS) and Counter(i["unsolvable"]["reason"] for i in items) == {r: 6 for r in REASONS}
    for item in items:
        check_dialogue(item)  # valid against the dialogue schema
        info = item["unsolvable"]
        assert item["turns"][-1]["action"] == "abstain" and "gold_poi_ids" not in item["turns"][-1]
        if info["reason"] in ("live_data", "unclear_intent") or info.get("asked_type"):
            continue  # tests/dialogues/test_unsolvable_reasons.py checks these by brute force
        constraints = [tuple(c) for c in info["constraints"]]
        same_city_type = [p for p in kb.pois.values()
                          if p.city == item["scenario"]["city"] and p.poi_type == item["scenario"]["poi_type"]]
        assert not any(all(satisfies(p, c) for c in constraints) for p in same_city_type)  # brute force
        assert satisfiable(kb, item) == []


def test_deterministic_per_seed(world):
    kb, dialogues = world
    assert build_unsolvable(kb, dialogues, 8, seed=3) == build_unsolvable(kb, dialogues, 8, seed=3)
    assert build_unsolvable(kb, dialogues, 8, seed=3) != build_unsolvable(kb, dialogues, 8, seed=4)
