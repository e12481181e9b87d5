"""A hand-built Tampa KB (8 restaurants, 1 hotel, 1 attraction) and schema-valid dialogues for
the baseline and runner tests.  Expected rankings in the tests are worked out by hand from
these records."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from trace_crs.kb import KB, POI, Review, load_kb
from trace_crs.kb.store import write_kb

# id, name, type, style, price, noise, ambience, features, stars, review_count, lat, lon, reviews
ROWS: list[tuple] = [
    ("r1", "Luigi Trattoria", "restaurant", "italian", 2, "quiet", ["romantic"], ["outdoor_seating"], 4.5, 120,
     27.9370, -82.4750, [(5, "The pasta was delicious and the risotto was creamy. Our server was friendly and attentive."),
                         (4, "A quiet romantic spot for date night. The tiramisu is a must.")]),
    ("r2", "Taco Loco", "restaurant", "mexican", 1, "loud", ["casual"], ["late_hours"], 4.0, 300,
     27.9600, -82.4370, [(4, "Cheap tacos and great burritos. The value is amazing for the price."),
                         (3, "Very loud and crowded on weekends but the salsa is fresh.")]),
    ("r3", "Sushi Zen", "restaurant", "japanese", 3, "quiet", ["classy"], ["reservations"], 3.5, 500,
     27.9506, -82.4572, [(2, "The sushi was bland and the staff were rude to us."),
                         (5, "Elegant room and the ramen broth was rich and deep.")]),
    ("r4", "Burger Barn", "restaurant", "burgers", 2, "average", ["casual"], ["parking"], 3.0, 10,
     27.9530, -82.5250, [(3, "Decent burger and fries with plenty of parking outside."),
                         (3, 'Nothing special about the "famous" milkshakes here at all.')]),
    ("r5", "Pho Saigon", "restaurant", "vietnamese", 1, "average", ["casual"], [], 4.0, 40,
     27.9980, -82.4600, [(4, "The pho broth is fragrant and the banh mi is crunchy.")]),
    ("r6", "Smokehouse Pit", "restaurant", "bbq", 2, "loud", ["lively"], ["outdoor_seating"], 4.2, 80,
     27.9610, -82.4380, [(5, "The brisket melts and the smoked ribs are the best in town.")]),
    ("r7", "Bistro Lumiere", "restaurant", "french", 4, "quiet", ["classy", "romantic"], ["reservations"], 4.8, 60,
     27.9380, -82.4760, [(5, "Candlelit tables and a perfect coq au vin for our anniversary dinner.")]),
    ("r8", "Curry House", "restaurant", "indian", 2, "average", ["cozy"], ["vegan_options"], 3.8, 25,
     27.9700, -82.4500, [(4, "The curry was spicy and the naan came warm from the tandoori oven.")]),
    ("h1", "Hyde Park Inn", "hotel", "boutique", 3, "quiet", ["cozy"], ["wifi"], 4.1, 90,
     27.9385, -82.4755, [(4, "Stylish rooms and a short walk to dinner spots nearby.")]),
    ("a1", "Tampa Museum of Art", "attraction", "museum", None, None, [], [], 4.6, 700,
     27.9490, -82.4620, [(5, "Great exhibits and a lovely riverside terrace to rest.")]),
]
RESTAURANTS = [r[0] for r in ROWS if r[2] == "restaurant"]


def tiny_kb(directory: Path) -> KB:
    """Write the KB to ``directory`` and load it back."""
    pois, reviews = [], []
    for (bid, name, typ, style, price, noise, amb, feats, stars, count, lat, lon, revs) in ROWS:
        pois.append(POI(business_id=bid, name=name, address="1 Main St", city="Tampa", state="FL", latitude=lat,
                        longitude=lon, poi_type=typ, categories=[style.title(), typ.title()], stars=stars,
                        review_count=count, price=price,
                        attributes={"style": style, "noise": noise, "ambience": amb, "features": feats}))
        for k, (s, text) in enumerate(revs, start=1):
            reviews.append(Review(review_id=f"rv_{bid}_{k}", business_id=bid, stars=s, text=text, date="2020-01-01"))
    write_kb(pois, reviews, directory, {"source": "tests"})
    return load_kb(directory)


def turn(tid: int, role: str, action: str, text: str, refs: list[str] | None = None) -> dict[str, Any]:
    t = {"turn_id": tid, "role": role, "action": action, "text": text, "referenced_poi_ids": refs or [],
         "referenced_review_ids": [], "citations": []}
    if action in ("recommend", "compare"):
        t["gold_poi_ids"], t["acceptable_alternative_poi_ids"] = list(refs or []), []
    return t


def dialogue(did: str, user_texts: list[str], recs: list[str], persona_type: str = "date_night",
             reject_first: bool = True) -> dict[str, Any]:
    """greet → ask → preference → recommend recs[0] → reject/accept → recommend recs[1] → accept → farewell."""
    turns = [turn(1, "user", "greet_and_seek", user_texts[0]), turn(2, "system", "ask_preference", "What do you like?"),
             turn(3, "user", "provide_preference", user_texts[1]),
             turn(4, "system", "recommend", f"Try {recs[0]}.", [recs[0]]),
             turn(5, "user", "reject_and_refine" if reject_first else "accept", user_texts[2]),
             turn(6, "system", "compare", f"Compare {recs[1]}.", [recs[1]]),
             turn(7, "user", "accept", "Great, thanks!"), turn(8, "system", "farewell", "Enjoy!")]
    return {"dialogue_id": did, "turns": turns, "split": "test",
            "scenario": {"persona_type": persona_type, "persona": "Maya, 34", "context": "anniversary weekend",
                         "city": "Tampa", "poi_type": "restaurant", "difficulty": "easy",
                         "hidden_preferences": {"style": None, "price_max": None, "noise": None, "ambience": [],
                                                "features": [], "anchor": None}},
            "candidate_poi_ids": list(RESTAURANTS), "expanded_pool_poi_ids": {"16": list(RESTAURANTS),
                                                                               "32": list(RESTAURANTS)},
            "open_set_poi_ids": list(RESTAURANTS),
            "metadata": {"generator": "simulated", "model": None, "seed": 42, "kb_sha256": "", "retries": 0}}


DIALOGUES = [
    dialogue("crs_test_00001", ["Hi, dinner in Tampa?", "I want sushi and ramen, somewhere quiet.",
                                "Too pricey, something cheap please."], ["r3", "r2"]),
    dialogue("crs_test_00002", ["Hello!", "Italian pasta for a romantic date night.", "Sounds lovely."],
             ["r1", "r7"], reject_first=False),
    dialogue("crs_test_00003", ["Hey there", "Somewhere near Ybor City with smoked ribs.", "Not that one."],
             ["r6", "r2"], persona_type="budget_traveler"),
]
