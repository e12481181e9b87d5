"""The one satisfaction function: hand-checked constraints, and every caller uses it."""
from __future__ import annotations

import pytest

from trace_crs.baselines.dst import DialogueState, passes
from trace_crs.baselines.preferences import Stated, satisfied
from trace_crs.dialogues import constraints
from trace_crs.kb import satisfaction
from trace_crs.kb.satisfaction import count_satisfied, satisfies, satisfying
from trace_crs.kb.schema import POI


def poi(bid="A", price=2, lat=27.95, lon=-82.45, **attrs):
    base = {"style": "italian", "noise": "quiet", "ambience": ["cozy"], "features": ["wifi"]}
    return POI(business_id=bid, name=bid, address="", city="Tampa", state="FL", latitude=lat, longitude=lon,
               poi_type="restaurant", categories=[], stars=4.0, review_count=1, price=price,
               attributes={**base, **attrs})


ANCHOR = {"name": "x", "latitude": 27.95, "longitude": -82.45}


@pytest.mark.parametrize("constraint,expected", [
    (("style", "italian"), True), (("style", "thai"), False), (("noise", "quiet"), True), (("noise", "loud"), False),
    (("ambience", "cozy"), True), (("ambience", "romantic"), False), (("features", "wifi"), True),
    (("features", "parking"), False), (("price_max", 2), True), (("price_max", 1), False), (("price_max", 4), True),
    (("anchor", {**ANCHOR, "max_km": 1.0}), True),
    # 0.018° of latitude ≈ 2.0 km: inside a 2.5 km radius, outside a 1.5 km one
    (("anchor", {**ANCHOR, "latitude": 27.968, "max_km": 2.5}), True),
    (("anchor", {**ANCHOR, "latitude": 27.968, "max_km": 1.5}), False)])
def test_satisfies(constraint, expected):
    assert satisfies(poi(), constraint) is expected


def test_unknown_attribute_fails_unless_lenient():
    bare = poi(price=None, style=None, noise=None)
    for c in (("price_max", 4), ("style", "italian"), ("noise", "quiet")):
        assert not satisfies(bare, c) and satisfies(bare, c, unknown_passes=True)
    assert not satisfies(bare, ("features", "parking"), unknown_passes=True)  # lists are always known


def test_unknown_facet_is_an_error():
    with pytest.raises(ValueError):
        satisfies(poi(), ("colour", "red"))


def test_satisfying_and_count():
    pois = [poi("A"), poi("B", price=3), poi("C", noise="loud")]
    assert satisfying(pois, [("price_max", 2), ("noise", "quiet")]) == ["A"]
    assert satisfying(pois, []) == ["A", "B", "C"]
    assert [count_satisfied(p, [("price_max", 2), ("noise", "quiet")]) for p in pois] == [2, 1, 1]


def test_dialogues_constraints_reexports_the_kb_function():
    assert constraints.satisfies is satisfaction.satisfies and constraints.satisfying is satisfaction.satisfying


def test_baseline_counts_agree_with_satisfies():
    stated = Stated(style="italian", noise="loud", price_max=2, ambience=("cozy", "romantic"), features=("wifi",))
    for p in (poi(), poi(price=None, style=None), poi(price=4, features=[])):
        assert satisfied(p, stated) == sum(satisfies(p, c) for c in stated.as_constraints())
    assert satisfied(poi(), stated) == 4  # style, price, cozy, wifi (not loud, not romantic)


@pytest.mark.parametrize("state,expected", [
    (DialogueState(price_max=1), [False, True, True]),  # unknown price (C) passes the lenient filter
    (DialogueState(noise="quiet"), [True, True, True]),  # quiet accepts average (B); unknown (C) passes
    (DialogueState(noise="loud"), [False, True, True]),
    (DialogueState(styles=["italian"]), [True, True, False]),  # an unknown style does not match
    (DialogueState(avoid_styles=["italian"]), [False, False, True]),
    (DialogueState(features=["wifi"]), [True, True, True])])
def test_dst_filter(state, expected):
    pois = [poi("A", price=2), poi("B", price=1, noise="average"), poi("C", price=None, style=None, noise=None)]
    assert [passes(p, state) for p in pois] == expected
