"""Constraint satisfaction and verbatim span extraction."""
import pytest

from trace_crs.dialogues.constraints import hidden_preferences, loosened, meets, satisfies
from trace_crs.dialogues.quotes import QuoteFinder, sentence_window
from trace_crs.kb.schema import POI


def poi(price=2, **attrs):
    base = {"style": "italian", "noise": "quiet", "ambience": ["romantic"], "features": ["patio"]}
    return POI("p", "P", "a", "Tampa", "FL", 27.95, -82.46, "restaurant", [], 4.0, 3, price, {**base, **attrs})


@pytest.mark.parametrize("constraint,expected", [
    (("style", "italian"), True), (("style", "thai"), False),
    (("price_max", 2), True), (("price_max", 1), False),
    (("noise", "quiet"), True), (("noise", "loud"), False),
    (("ambience", "romantic"), True), (("ambience", "casual"), False),
    (("features", "patio"), True), (("features", "wifi"), False),
    # 0.01° of latitude = 1.112 km
    (("anchor", {"name": "x", "latitude": 27.96, "longitude": -82.46, "max_km": 2.0}), True),
    (("anchor", {"name": "x", "latitude": 27.96, "longitude": -82.46, "max_km": 1.0}), False),
    # a value the traveller does not want: met when the POI lacks it
    (("avoid", ("noise", "loud")), True), (("avoid", ("noise", "quiet")), False),
    (("avoid", ("ambience", "romantic")), False), (("avoid", ("features", "wifi")), True),
    (("avoid", ("style", "thai")), True),
    # either-of: met when the POI has one member
    (("either", (("style", "thai"), ("style", "italian"))), True),
    (("either", (("ambience", "casual"), ("features", "wifi"))), False),
])
def test_satisfies(constraint, expected):
    assert meets(poi(), constraint) is expected
    if constraint[0] not in ("avoid", "either"):
        assert satisfies(poi(), constraint) is expected  # plain ones: the KB function itself


def test_an_unknown_value_is_not_an_avoided_one():
    assert meets(poi(noise=None), ("avoid", ("noise", "loud"))) is True
    assert meets(poi(style=None), ("avoid", ("style", "thai"))) is True


def test_unknown_price_fails_price_constraint_and_bad_facet_raises():
    assert satisfies(poi(price=None), ("price_max", 4)) is False
    with pytest.raises(ValueError, match="unknown constraint facet"):
        satisfies(poi(), ("colour", "red"))


def test_loosened_and_hidden_preferences():
    assert loosened(("price_max", 2)) == ("price_max", 3)
    assert loosened(("price_max", 3)) is None and loosened(("noise", "quiet")) is None
    prefs = hidden_preferences([("price_max", 3), ("features", "wifi"), ("features", "gym"), ("price_max", 2)])
    assert prefs == {"style": None, "price_max": 2, "noise": None, "ambience": [], "features": ["gym", "wifi"],
                     "anchor": None, "avoid": {}, "either": []}
    prefs = hidden_preferences([("avoid", ("noise", "loud")), ("ambience", "cozy"), ("avoid", ("ambience", "touristy")),
                                ("avoid", ("ambience", "lively")), ("either", (("style", "thai"), ("style", "korean")))])
    assert prefs["avoid"] == {"ambience": ["lively", "touristy"], "noise": ["loud"]} and prefs["ambience"] == ["cozy"]
    assert prefs["either"] == [[{"facet": "style", "value": "thai"}, {"facet": "style", "value": "korean"}]]


def test_sentence_window_by_hand():
    text = "Great pasta here. The room was quiet all evening. Bye."
    # "quiet" at 31..36; its sentence is "The room was quiet all evening." = 18..49
    assert text.index("quiet") == 31
    assert sentence_window(text, 31, 36) == (18, 49)
    assert sentence_window(text, 6, 11) == (0, 17)  # first sentence "Great pasta here."


def test_sentence_window_trims_and_avoids_double_quotes():
    text = 'He said "wow" and the patio was lovely in spring and summer and autumn and winter too'
    a, b = sentence_window(text, text.index("patio"), text.index("patio") + 5, max_chars=30)
    assert '"' not in text[a:b] and "patio" in text[a:b] and b - a <= 30
    assert text[a] != " " and text[b - 1] != " "


def test_quote_finder_on_tiny_kb(tiny_kb):
    finder = QuoteFinder(tiny_kb)
    spans = finder.support("r00", "noise", "quiet")  # review r00_r0: "Great pasta here. The room was quiet all evening."
    assert [(s.review_id, s.quote) for s in spans] == [("r00_r0", "The room was quiet all evening.")]
    assert finder.support("r00", "noise", "loud") == []  # no match
    price = finder.support("r00", "price_max", 2)  # price 2 -> public price phrases of ceiling $$ ("cheap")
    assert [s.quote for s in price] == ["Prices felt cheap overall."]
    for s in spans + price:
        assert tiny_kb.reviews[s.review_id].text[s.start:s.end] == s.quote
    # fallback: best review (all 4 stars -> smallest id r00_r0), first sentence
    assert finder.fallback("r00").quote == "Great pasta here."
