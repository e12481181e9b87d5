"""Every unsolvable reason, by brute force over the whole KB (TravelBench's Unsolvable subset):
unclear intent (city / kind / everything missing), contradictions over every facet with
exclusive values, uncovered cities and uncovered POI types."""
from __future__ import annotations

from collections import Counter

import pytest

from trace_crs.dialogues.constraints import satisfies
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.schema import check_dialogue
from trace_crs.dialogues.unsolvable import (CONTRADICTABLE, REASONS, UNCLEAR, UNCOVERED_CITIES, UNCOVERED_TYPES,
                                            build_unsolvable, satisfiable)
from trace_crs.kb.facets import STYLES
from trace_crs.kb.synthetic import build_synthetic

N_PER_REASON = 12


@pytest.fixture(scope="module")
def items():
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    from trace_crs.kb.store import KB
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    return kb, build_unsolvable(kb, generate_simulated(kb, 60, seed=42), n=N_PER_REASON * len(REASONS), seed=42)


def by(items, reason):
    return [i for i in items if i["unsolvable"]["reason"] == reason]


def test_every_reason_is_present_and_schema_valid(items):
    kb, all_items = items
    assert Counter(i["unsolvable"]["reason"] for i in all_items) == {r: N_PER_REASON for r in REASONS}
    for item in all_items:
        check_dialogue(item)
        assert satisfiable(kb, item) == []


def test_unclear_intent_leaves_out_what_it_says(items):
    _, all_items = items
    unclear = by(all_items, "unclear_intent")
    assert Counter(i["unsolvable"]["missing"] for i in unclear) == {m: N_PER_REASON // len(UNCLEAR) for m in UNCLEAR}
    cities = {"Indianapolis", "Nashville", "New Orleans", "Philadelphia", "Reno", "Saint Louis", "Tampa", "Tucson"}
    kinds = ("restaurant", "hotel", "attraction", "place to eat", "place to stay", "thing to do", "place to visit",
             "spot for a meal", "hotel room")
    for item in unclear:
        text, missing = item["turns"][0]["text"], item["unsolvable"]["missing"]
        assert item["unsolvable"]["constraints"] == []
        has_city = any(c in text for c in cities)
        has_kind = any(k in text.lower() for k in kinds)
        assert has_city == (missing == "poi_type"), text
        assert has_kind == (missing == "city"), text
        if missing == "poi_type":   # no style either: a cuisine or hotel style would name the kind
            assert not any(w in text.lower() for w in ("mood for", "craving", "stay", "cuisine")), text


def test_contradictions_vary_over_every_exclusive_facet(items):
    kb, all_items = items
    contra = by(all_items, "contradictory")
    facets = Counter(i["unsolvable"]["constraints"][0][0] for i in contra)
    assert set(facets) == set(CONTRADICTABLE) and len({tuple(map(tuple, i["unsolvable"]["constraints"])) for i in contra}) > 2
    for item in contra:
        (f1, v1), (f2, v2) = item["unsolvable"]["constraints"]
        assert f1 == f2 and v1 != v2
        assert not any(satisfies(p, (f1, v1)) and satisfies(p, (f2, v2)) for p in kb.pois.values())  # whole KB
        if f1 == "style":
            assert {v1, v2} <= set(STYLES[item["scenario"]["poi_type"]])


def test_uncovered_cities_and_types(items):
    kb, all_items = items
    unc = by(all_items, "uncovered")
    typed = [i for i in unc if i["unsolvable"].get("asked_type")]
    cities = [i for i in unc if not i["unsolvable"].get("asked_type")]
    assert len(typed) == len(cities) == N_PER_REASON // 2
    assert {p.poi_type for p in kb.pois.values()}.isdisjoint(UNCOVERED_TYPES)
    for item in typed:
        asked = item["unsolvable"]["asked_type"]
        assert asked in UNCOVERED_TYPES and asked in item["turns"][0]["text"]
        assert ["poi_type", asked] in item["unsolvable"]["constraints"]
        assert not [p for p in kb.pois.values() if p.poi_type == asked]                            # brute force
    for item in cities:
        assert item["scenario"]["city"] in UNCOVERED_CITIES
        assert not [p for p in kb.pois.values() if p.city == item["scenario"]["city"]]              # brute force
