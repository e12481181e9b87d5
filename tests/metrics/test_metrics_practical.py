import math
import sys
from pathlib import Path

import pytest

from trace_crs.metrics import practical as pr
from trace_crs.metrics.score import score_predictions

sys.path.insert(0, str(Path(__file__).parent))
from worked import dialogue, predictions, turn  # noqa: E402

P1, P2, P3, P4 = (27.95, -82.45), (27.959, -82.45), (27.95, -82.35), (27.968, -82.45)
R = 6371.0088


def gc_km(a, b):
    """Independent great-circle distance: spherical law of cosines."""
    (la1, lo1), (la2, lo2) = [tuple(map(math.radians, x)) for x in (a, b)]
    c = math.sin(la1) * math.sin(la2) + math.cos(la1) * math.cos(la2) * math.cos(lo2 - lo1)
    return R * math.acos(min(1.0, c))


def test_spatial_coherence_threshold_pairs():
    # d(P1,P2) ~ 1.0 km, d(P2,P4) ~ 1.0 km, d(P1,P4) ~ 2.0015 km > 2
    assert gc_km(P1, P4) > 2.0 > gc_km(P1, P2)
    assert pr.spatial_coherence([P1, P2, P4]) == pytest.approx(2 / 3)
    assert pr.spatial_coherence([P1, P2, P4], max_km=2.01) == 1.0
    assert pr.spatial_coherence([P1, P3]) == 0.0


def test_single_poi_has_no_pairs():
    assert math.isnan(pr.spatial_coherence([P1]))
    assert math.isnan(pr.spatial_coherence([]))
    assert math.isnan(pr.route_km([P1]))


def test_route_nearest_neighbour():
    # from P1 the nearest is P2, then P3
    want = gc_km(P1, P2) + gc_km(P2, P3)
    assert pr.route_km([P1, P3, P2]) == pytest.approx(want, rel=1e-6)
    assert pr.route_km([P1, P2, P4]) == pytest.approx(gc_km(P1, P2) + gc_km(P2, P4), rel=1e-6)


def test_route_tie_goes_to_earlier_poi():
    # B and C are equally far from A; B (earlier) first, then C: d + 2d
    d = gc_km((0, 0), (0, 1))
    assert pr.route_km([(0, 0), (0, 1), (0, -1)]) == pytest.approx(3 * d, rel=1e-6)


@pytest.mark.parametrize("texts,ceiling", [
    (["Something cheap please."], 2), (["Budget trip", "nothing else"], 2), (["Cheap or moderate?"], 3),
    (["cheap", "Actually we can SPLURGE"], 4), (["upscale"], 4), (["affordable"], 2),
    (["cheap", "Actually LUXURY is fine"], 2),  # a class word yields to a stated budget (kb.price)
    (["Reasonably priced.", "Somewhere mid-range."], 3), (["Something inexpensive."], 2),
    (["A budget hotel, please."], None), (["I'm a traveller on a tight budget."], None),
    (["It doesn't have to be cheap."], None),
    (["cheaper places", "no price talk"], None), ([], None)])
def test_price_ceiling(texts, ceiling):
    assert pr.price_ceiling(texts) == ceiling


def test_price_alignment():
    assert pr.price_alignment([2, 3, None], 2) == 0.5
    assert pr.price_alignment([1, 2], 2) == 1.0
    assert math.isnan(pr.price_alignment([None], 2))
    assert math.isnan(pr.price_alignment([1], None))


def test_itinerary_diversity():
    assert pr.itinerary_diversity(["restaurant", "hotel", "restaurant"]) == pytest.approx(2 / 3)
    assert pr.itinerary_diversity(["hotel", "attraction", "restaurant"]) == 1.0
    assert math.isnan(pr.itinerary_diversity([]))
    # a single-type candidate pool: nothing to diversify, undefined
    assert math.isnan(pr.itinerary_diversity(["hotel"], ["hotel", "hotel"]))
    assert pr.itinerary_diversity(["hotel"], ["hotel", "restaurant"]) == pytest.approx(1 / 3)


def _two_recommendations(did, user_first, user_second, first, second, pool=None, price_max=None):
    d = dialogue(did, [turn(1, "user", "greet_and_seek", user_first), turn(2, "system", "recommend", "x", gold=["P5"]),
                       turn(3, "user", "reject_and_refine", user_second), turn(4, "system", "recommend", "y", gold=["P6"])],
                 pool=pool, price_max=price_max)
    return d, predictions([(did, 2, [first]), (did, 4, [second])])


def test_price_alignment_reads_the_one_vocabulary(kb):
    """Recommended P2 ($$$) then P1 ($$).  "mid-range" → ceiling 3: both fit (1.0); "$$"
    after a negated "cheap" → ceiling 2: one of two (0.5); a persona's "tight budget" states
    no price: NaN (excluded, as the paper excludes dialogues without an explicit price)."""
    cases = [("Hi! I'm a traveller on a tight budget, in Tampa.", "My budget says mid-range.", 1.0),
             ("It doesn't need to be cheap.", "Hmm, $$ though.", 0.5),
             ("Hi! I'm a traveller on a tight budget, in Tampa.", "Somewhere else.", None)]
    for i, (first, second, want) in enumerate(cases):
        d, preds = _two_recommendations(f"crs_yelp_0003{i}", first, second, "P2", "P1")
        got = score_predictions(kb, [d], preds).per_dialogue["price_alignment"].iloc[0]
        assert (math.isnan(got) if want is None else got == want), (first, second, got)


def test_itinerary_diversity_is_defined_only_on_mixed_type_pools(kb):
    """P1 restaurant then P3 hotel from the mixed pool P1..P8: 2 types / 3.  The same kind of
    plan from a restaurant-only pool: NaN (the pool, not the system, fixes it at 1/3)."""
    mixed, preds = _two_recommendations("crs_yelp_00041", "Dinner.", "Else.", "P1", "P3")
    assert score_predictions(kb, [mixed], preds).per_dialogue["itinerary_diversity"].iloc[0] == pytest.approx(2 / 3)
    single, preds = _two_recommendations("crs_yelp_00042", "Dinner.", "Else.", "P1", "P2",
                                         pool=["P1", "P2", "P5", "P6", "P7", "P8"])
    s = score_predictions(kb, [single], preds)
    assert math.isnan(s.per_dialogue["itinerary_diversity"].iloc[0])
    assert s.aggregate["metrics"]["itinerary_diversity"] is None


def test_price_ceiling_recall_against_hidden_price_max():
    """Three dialogues state a price (two read right), two do not (one misread as a ceiling)."""
    rows = [("Keep it cheap, please.", 2), ("My budget says mid-range.", 3), ("Keep it cheap.", 3),
            ("Somewhere quiet.", None), ("We can splurge.", None)]
    ds = [dialogue(f"d{i}", [turn(1, "user", "greet_and_seek", text)], price_max=pm) for i, (text, pm) in enumerate(rows)]
    out = pr.price_ceiling_recall(ds)
    assert out == {"price_dialogues": 3, "price_ceiling_recall": pytest.approx(2 / 3),
                   "no_price_dialogues": 2, "false_ceiling_rate": 0.5}
    assert math.isnan(pr.price_ceiling_recall([])["price_ceiling_recall"])
