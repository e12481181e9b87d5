"""Shared fixtures of the LLM-baseline tests: a 4-POI hand-written KB, one dialogue, and the
autouse reset of DSPy settings and cache (STYLE: LLM code).  Imported by ``test_llm_*``."""
from __future__ import annotations

import os

import dspy
import pytest

from trace_crs.baselines.base import TurnContext
from trace_crs.kb import KB
from trace_crs.kb.schema import POI, Review

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Two quiet Italian places (p1 cheap, p2 pricey), one loud Mexican, one quiet Thai.
# p1/p2 are 0.3 km apart; p3 is ~5.5 km away; p4 has no coordinates... no: all valid.
POIS = [
    ("p1", "Luigi Trattoria", "italian", 2, "quiet", 4.5, 100, 27.9500, -82.4570),
    ("p2", "Roma Grand", "italian", 4, "quiet", 4.0, 50, 27.9527, -82.4570),
    ("p3", "Taco Loco", "mexican", 1, "loud", 4.0, 300, 28.0000, -82.4570),
    ("p4", "Thai Garden", "thai", 2, "quiet", 3.5, 20, 27.9000, -82.4000),
]
REVIEWS = {
    "p1": ["The handmade pasta was wonderful and the room was quiet enough for a long talk.",
           "Friendly staff, fair prices, and a lovely candle lit patio for a date night."],
    "p2": ["Expensive but the tiramisu and the wine list were excellent for a special dinner."],
    "p3": ["Loud music and cheap tacos, a fun place for a big group of friends on Friday."],
    "p4": ["Spicy green curry and a calm garden room with quiet music in the background."],
}


def make_kb() -> KB:
    pois = {pid: POI(pid, name, "1 Main St", "Tampa", "FL", lat, lon, "restaurant",
                     [style.title(), "Restaurants"], stars, count, price,
                     {"style": style, "noise": noise, "ambience": [], "features": []})
            for pid, name, style, price, noise, stars, count, lat, lon in POIS}
    reviews = {}
    for pid, texts in REVIEWS.items():
        for i, text in enumerate(texts):
            rid = f"{pid}_r{i}"
            reviews[rid] = Review(rid, pid, 5 - i, text, "2020-01-0%d" % (i + 1))
    return KB(pois, reviews)


def make_dialogue(dialogue_id: str = "d1", persona_type: str = "date_night") -> dict:
    return {
        "dialogue_id": dialogue_id,
        "scenario": {"persona_type": persona_type, "persona": "Maya", "context": "anniversary",
                     "city": "Tampa", "poi_type": "restaurant", "difficulty": "easy",
                     "hidden_preferences": {}},
        "candidate_poi_ids": ["p1", "p2", "p3", "p4"],
        "turns": [
            {"turn_id": 1, "role": "user", "action": "greet_and_seek",
             "text": "Hi! I want a quiet italian dinner with pasta, not too expensive."},
            {"turn_id": 2, "role": "system", "action": "recommend", "text": "Try Luigi Trattoria.",
             "referenced_poi_ids": ["p2"]},
            {"turn_id": 3, "role": "user", "action": "reject_and_refine",
             "text": "Too pricey. Something cheaper but still quiet italian please."},
            {"turn_id": 4, "role": "system", "action": "recommend", "text": "...", "referenced_poi_ids": ["p1"]},
        ],
    }


def make_ctx(pool: str = "closed", turn_index: int = 3, dialogue: dict | None = None, kb: KB | None = None,
             action: str = "recommend") -> TurnContext:
    return TurnContext.from_dialogue(dialogue or make_dialogue(), turn_index, ("p1", "p2", "p3", "p4"),
                                    kb or make_kb(), pool, action=action)


@pytest.fixture(autouse=True)
def reset_dspy():
    """Fresh DSPy settings and an empty in-memory cache for every test (no disk writes)."""
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    with dspy.context(lm=None, adapter=None, track_usage=False):
        yield
    dspy.settings.configure(lm=None)


def test_fixture_kb_is_consistent():
    kb = make_kb()
    assert sorted(kb.pois) == ["p1", "p2", "p3", "p4"]
    assert [r.review_id for r in kb.reviews_of("p1")] == ["p1_r0", "p1_r1"]
    assert make_ctx().rejected_poi_ids == {"p2"}
