import math

import pytest

from trace_crs.metrics import practical as pr

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
    (["cheap", "Actually LUXURY is fine"], 4), (["upscale"], 4), (["affordable"], 2),
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
