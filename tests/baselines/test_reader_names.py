"""Known place names are masked before the preference reader reads facets
(trace_crs.baselines.reader_names); hand-worked cases and the hand-written fixture."""

from __future__ import annotations

import pytest
import yaml

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.reader_names import masked, name_key
from trace_crs.baselines.rejection import rejected_in_turn

from .place_names_score import FIXTURE, passes, read

CASES = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:40] for c in CASES])
def test_fixture_case(case: dict) -> None:
    assert passes(case), read(case["text"], case["names"])


def test_without_names_the_name_is_read_as_before() -> None:
    # the words of a name the reader does not know still read (no names passed: main's behaviour)
    assert ("style", "indian") in read("Mae's Curry House isn't what I had in mind.", [])


def test_mask_keeps_length_and_folds_case_punctuation() -> None:
    names = name_key(["Mae's Curry House", "Golden BBQ & Co"])
    text = "maes curry house or golden bbq and co?"
    out = masked(text, names)
    assert len(out) == len(text)
    assert out == "x" * len("maes curry house") + " or " + "x" * len("golden bbq and co") + "?"


def test_one_word_name_only_when_capitalised() -> None:
    names = name_key(["Cafe"])
    assert stated_preferences(["somewhere like a cafe"], names=names).style == "cafe"
    assert stated_preferences(["Cafe was lovely, now italian"], names=names).style == "italian"


def test_retracting_a_named_place_does_not_withdraw_the_last_sentence() -> None:
    names = ("Kitchen Thibodeaux",)
    got = stated_preferences(["Somewhere quiet.", "I'd rather skip Kitchen Thibodeaux."], names=names)
    assert got.noise == "quiet"


def test_rejection_still_sees_the_name() -> None:
    assert rejected_in_turn(
        "Mae's Curry House isn't what I had in mind.", ["a", "b"], ["Mae's Curry House", "Blue Door"]
    ) == {"a"}


def test_turn_context_knows_candidates_and_city_names(kb) -> None:
    from .helpers import first_turn

    ctx = first_turn(kb, "Curry House isn't what I had in mind, somewhere quiet.", candidates=["r1", "r8"])
    # candidates and every KB POI of the city (the hotel and museum too): public, no leakage
    assert {"Curry House", "Luigi Trattoria", "Hyde Park Inn", "Tampa Museum of Art"} <= set(ctx.place_names)
    got = stated_preferences(ctx.user_texts, ctx.poi_type, ctx.place_names)
    assert got.noise == "quiet" and ("style", "indian") not in got.avoid and got.style is None


@pytest.mark.parametrize(
    ("text", "names", "poi_type", "price"),
    [
        ("The Cheap Eats Cafe was full, somewhere quiet?", ("The Cheap Eats Cafe",), None, None),  # a name, no budget
        ("Budget Inn is booked, we need a pool", ("Budget Inn",), "hotel", None),
        ("Luxury Suites is too far, something cheap near us", ("Luxury Suites",), "hotel", 2),  # the wish outside
        ("The Cheap Eats Cafe was full, somewhere quiet?", (), None, 2),  # unknown name: read as before
    ],
)
def test_price_reader_sees_the_name_mask(text, names, poi_type, price) -> None:
    assert stated_preferences([text], poi_type, names=names).price_max == price
