"""Hand-built KB and dialogues for the metric tests (every expected value is worked by hand).

KB (Tampa): P1..P8.  P1 at (27.95, -82.45); P2 0.009° north of P1 (≈1.0 km); P4 0.018°
north of P1 (≈2.0 km); P3 0.1° east of P1 (≈9.8 km); P5..P8 far away.  Prices: P1 2, P2 3,
P3 1, P4 None.  Types: P3 hotel, P4 attraction, others restaurant.
"""
from __future__ import annotations

import copy

import pytest

from trace_crs.kb import POI, Review, load_kb
from trace_crs.kb.store import write_kb

REVIEWS = {
    "ra": ("P1", "The pasta was fantastic and the patio is quiet at night. Service was slow."),
    "rb": ("P1", "Great cocktails and a cozy bar."),
    "rc": ("P2", "Cheap tacos, loud music."),
}
POIS = [  # id, lat, lon, type, price
    ("P1", 27.95, -82.45, "restaurant", 2), ("P2", 27.959, -82.45, "restaurant", 3),
    ("P3", 27.95, -82.35, "hotel", 1), ("P4", 27.968, -82.45, "attraction", None),
    ("P5", 28.50, -82.45, "restaurant", 2), ("P6", 28.60, -82.45, "restaurant", 2),
    ("P7", 28.70, -82.45, "restaurant", 2), ("P8", 28.80, -82.45, "restaurant", 2),
]


@pytest.fixture(scope="session")
def kb_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("kb")
    pois = [POI(business_id=b, name=b, address="1 Main St", city="Tampa", state="FL", latitude=la, longitude=lo,
                poi_type=t, categories=[], stars=4.0, review_count=1, price=p,
                attributes={"style": None, "noise": None, "ambience": [], "features": []})
            for b, la, lo, t, p in POIS]
    reviews = [Review(review_id=r, business_id=b, stars=4, text=t, date="2020-01-01") for r, (b, t) in REVIEWS.items()]
    write_kb(pois, reviews, d, {"profile": "test"})
    return d


@pytest.fixture(scope="session")
def kb(kb_dir):
    return load_kb(kb_dir)


def turn(tid, role, action, text="", gold=None, alts=None):
    t = {"turn_id": tid, "role": role, "action": action, "text": text, "referenced_poi_ids": list(gold or []),
         "referenced_review_ids": [], "citations": []}
    if role == "system" and action in ("recommend", "compare"):
        t["gold_poi_ids"] = list(gold or [])
        t["acceptable_alternative_poi_ids"] = list(alts or [])
    return t


def dialogue(did, turns, difficulty="easy"):
    return {"dialogue_id": did,
            "scenario": {"persona_type": "solo", "persona": "x", "context": "y", "city": "Tampa",
                         "poi_type": "restaurant", "difficulty": difficulty,
                         "hidden_preferences": {"style": None, "price_max": None, "noise": None, "ambience": [],
                                                "features": [], "anchor": None}},
            "candidate_poi_ids": [f"P{i}" for i in range(1, 9)],
            "expanded_pool_poi_ids": {"16": [], "32": []}, "open_set_poi_ids": [],
            "turns": turns, "split": "test",
            "metadata": {"generator": "simulated", "model": None, "seed": 42, "kb_sha256": "", "retries": 0}}


@pytest.fixture()
def dialogues():
    """D1: recommend (gold P1, alt P2), reject, recommend (gold P2); user says "cheap".
    D2: compare (gold P1+P2), no rejection, no price keyword; never hit by the predictions."""
    d1 = dialogue("crs_yelp_00001", [
        turn(1, "user", "greet_and_seek", "Something cheap please."),
        turn(2, "system", "recommend", "Try P1, the pasta was fantastic.", gold=["P1"], alts=["P2"]),
        turn(3, "user", "reject_and_refine", "No, somewhere else."),
        turn(4, "system", "recommend", "Then P2 for cheap tacos.", gold=["P2"]),
    ])
    d2 = dialogue("crs_yelp_00002", [
        turn(1, "user", "greet_and_seek", "Dinner for two."),
        turn(2, "system", "compare", "P1 or P2.", gold=["P1", "P2"]),
    ], difficulty="hard")
    return copy.deepcopy([d1, d2])
