"""The framing sentence of the template responses names the kind of place in grammatical
English on real Yelp categories (plural umbrella categories such as "Restaurants" are not
adjectives: "a restaurants spot" was the bug)."""
from __future__ import annotations

import pytest

from trace_crs.baselines.responses import kind_phrase
from trace_crs.kb.schema import POI


def _poi(poi_type: str, categories: list[str], style: str | None = None) -> POI:
    return POI("b1", "Somewhere", "1 Main St", "Tampa", "FL", 27.9, -82.4, poi_type, categories, 4.0, 10, 2,
               {"style": style})


@pytest.mark.parametrize(
    ("poi_type", "categories", "phrase"),
    [
        ("restaurant", ["Mexican", "Restaurants"], "a mexican spot"),          # adjective first: as before
        ("restaurant", ["Restaurants", "Italian"], "an italian spot"),         # umbrella plural skipped; "an"
        ("restaurant", ["Restaurants"], "a restaurant"),                        # no adjective: the POI type
        ("restaurant", ["Sushi Bars", "Restaurants", "Japanese"], "a japanese spot"),
        ("restaurant", ["Restaurants", "American (Traditional)"], "an american (traditional) spot"),
        ("restaurant", ["Breakfast & Brunch"], "a breakfast & brunch spot"),
        ("restaurant", ["Swiss"], "a swiss spot"),                              # "ss" is no plural
        ("hotel", ["Hotels & Travel", "Hotels"], "a hotel"),
        ("attraction", ["Museums", "Arts & Entertainment"], "an attraction"),
        ("attraction", [], "an attraction"),                                    # no categories at all
        ("attraction", ["", "Zoos"], "an attraction"),                          # a blank category is no kind
    ],
)
def test_kind_phrase_without_a_style(poi_type, categories, phrase):
    assert kind_phrase(_poi(poi_type, categories)) == phrase


@pytest.mark.parametrize(
    ("poi_type", "categories", "style", "phrase"),
    [
        ("restaurant", ["Restaurants", "Pizza"], "italian", "an italian spot"),   # the style facet first
        ("hotel", ["Hotels & Travel", "Luggage Storage", "Hotels"], "boutique", "a boutique spot"),
        ("hotel", ["Hotels & Travel"], "extended_stay", "an extended stay spot"),
        ("attraction", ["Museums"], None, "an attraction"),
    ],
)
def test_kind_phrase_prefers_the_style(poi_type, categories, style, phrase):
    assert kind_phrase(_poi(poi_type, categories, style)) == phrase
