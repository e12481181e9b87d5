"""A tiny hand-written KB (Tampa, 10 POIs per type) for the dialogue tests."""
from __future__ import annotations

import os

import pytest

from trace_crs.kb.schema import POI, Review
from trace_crs.kb.store import load_kb, write_kb

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# (style, price, noise, ambience, features, stars) per POI; Tampa hot spot Downtown-ish coordinates
SPECS = {
    "restaurant": [
        ("italian", 2, "quiet", ["romantic"], ["outdoor_seating"], 4.5),
        ("italian", 3, "quiet", ["romantic", "classy"], ["reservations"], 4.0),
        ("italian", 2, "loud", ["casual"], ["outdoor_seating", "parking"], 3.5),
        ("italian", 1, "average", ["cozy"], ["parking"], 3.0),
        ("mexican", 1, "loud", ["lively"], ["late_hours"], 4.0),
        ("thai", 2, "quiet", ["cozy"], ["vegan_options"], 4.5),
        ("seafood", 3, "average", ["casual"], ["outdoor_seating"], 3.5),
        ("cafe", 1, "quiet", ["cozy"], ["wifi"], 4.0),
        ("bbq", 2, "loud", ["casual"], ["parking"], 3.0),
        ("pizza", 1, "average", ["casual"], ["family_friendly"], 2.5),
    ],
    "hotel": [
        ("boutique", 3, "quiet", ["trendy"], ["wifi"], 4.5),
        ("boutique", 2, "quiet", ["cozy"], ["wifi", "parking"], 4.0),
        ("boutique", 3, "average", ["classy"], ["pool"], 3.5),
        ("boutique", 2, "loud", ["trendy"], ["gym"], 3.0),
        ("business", 3, "quiet", ["classy"], ["wifi", "gym"], 4.0),
        ("resort", 4, "quiet", ["classy"], ["pool"], 4.5),
        ("budget", 1, "loud", ["casual"], ["parking"], 2.5),
        ("historic", 3, "quiet", ["historic"], ["wifi"], 4.0),
        ("luxury", 4, "quiet", ["classy"], ["pool", "gym"], 5.0),
        ("extended_stay", 2, "average", ["casual"], ["wifi"], 3.5),
    ],
    "attraction": [
        ("museum", 2, "quiet", ["historic"], ["guided_tours"], 4.5),
        ("museum", 1, "quiet", ["casual"], ["family_friendly"], 4.0),
        ("museum", 2, "average", ["trendy"], ["guided_tours", "parking"], 3.5),
        ("museum", 1, "loud", ["touristy"], ["family_friendly"], 3.0),
        ("park", 1, "quiet", ["casual"], ["pet_friendly"], 4.5),
        ("tour", 2, "average", ["lively"], ["guided_tours"], 4.0),
        ("zoo_aquarium", 3, "loud", ["touristy"], ["family_friendly"], 4.0),
        ("garden", 1, "quiet", ["romantic"], ["wheelchair_accessible"], 4.5),
        ("theater", 3, "average", ["classy"], ["reservations"], 4.0),
        ("nightlife", 2, "loud", ["lively"], ["late_hours"], 3.5),
    ],
}
WORD = {"italian": "pasta", "mexican": "tacos", "thai": "pad thai", "seafood": "oysters", "cafe": "espresso",
        "bbq": "brisket", "pizza": "pizza", "boutique": "boutique", "business": "business center", "resort": "spa",
        "budget": "basic rooms", "historic": "historic building", "luxury": "luxurious", "extended_stay": "kitchenette",
        "museum": "exhibits", "park": "trails", "tour": "walking tour", "zoo_aquarium": "aquarium", "garden": "botanical",
        "theater": "theater", "nightlife": "cocktails", "quiet": "quiet", "loud": "noisy", "average": "not too loud",
        "romantic": "romantic", "classy": "elegant", "casual": "laid-back", "cozy": "cozy", "lively": "lively",
        "trendy": "trendy", "historic_amb": "old-fashioned", "touristy": "touristy", "outdoor_seating": "patio",
        "reservations": "reservations", "parking": "parking", "late_hours": "open late", "vegan_options": "vegan",
        "wifi": "wifi", "family_friendly": "kids", "pool": "pool", "gym": "gym", "guided_tours": "guided tour",
        "pet_friendly": "dog friendly", "wheelchair_accessible": "wheelchair", "price1": "cheap", "price3": "moderate"}


def build_records(city: str = "Tampa") -> tuple[list[POI], list[Review]]:
    """10 POIs per type, three reviews each: one on style+noise, one on ambience+features, one on price."""
    pois, reviews = [], []
    for t, specs in SPECS.items():
        for i, (style, price, noise, amb, feats, stars) in enumerate(specs):
            bid = f"{t[0]}{i:02d}"
            pois.append(POI(bid, f"{t.title()} {i}", f"{i} Main St", city, "FL", 27.95 + 0.001 * i, -82.457,
                            t, [style], stars, 3, price,
                            {"style": style, "noise": noise, "ambience": amb, "features": feats}))
            amb_word = WORD["historic_amb" if amb[0] == "historic" else amb[0]]
            texts = [f"Great {WORD[style]} here. The room was {WORD[noise]} all evening.",
                     f"Very {amb_word} feel! They have {WORD[feats[0]]} too.",
                     f"Prices felt {WORD['price1'] if price <= 2 else WORD['price3']} overall. Would return."]
            for j, text in enumerate(texts):
                reviews.append(Review(f"{bid}_r{j}", bid, 4, text, "2020-01-01"))
    return pois, reviews


@pytest.fixture(scope="session")
def tiny_kb_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("kb")
    pois, reviews = build_records()
    write_kb(pois, reviews, path, {"source": "test"})
    return path


@pytest.fixture(scope="session")
def tiny_kb(tiny_kb_dir):
    return load_kb(tiny_kb_dir)
