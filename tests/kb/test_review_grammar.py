"""kb.review_grammar: the facet-free body grammar, slot filling and the facet pre-filter."""
import numpy as np
import pytest

from trace_crs.kb.lexicon import facet_lexicon, find_facets
from trace_crs.kb.review_grammar import SECTIONS, Voice, body_sentence, draw_voice, facet_hits, fill, grammar, templates


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for x in node:
            yield from _strings(x)
    elif isinstance(node, dict):
        for x in node.values():
            yield from _strings(x)


def _exact(text):  # the lexicon's own matchers, no pre-filter
    return {(f, v) for f in [*facet_lexicon(), "price"] for v, _, _ in find_facets(text, f)}


@pytest.mark.parametrize("section", ["slots", "items", "templates"])
def test_bank_pieces_carry_no_facet_keyword(section):
    offenders = [s for s in _strings(grammar()[section]) if _exact(s)]
    assert offenders == []


@pytest.mark.parametrize("text,expected", [
    ("We sat on the patio.", {("features", "outdoor_seating")}),
    ("A cheap and cosy B&B.", {("price", "2"), ("ambience", "cozy"), ("style", "bed_and_breakfast")}),
    ("The wi-fi was fast, the room was not too loud.", {("features", "wifi"), ("noise", "average")}),
    ("Nothing to report about the wedge salad.", set()),
    ("", set()),
    ("Under $8 for lunch.", _exact("Under $8 for lunch.")),
])
def test_facet_hits_golden(text, expected):
    assert facet_hits(text) == expected == _exact(text)


VOICE = Voice(name="Jansen Pit", hood="Soulard", city="Saint Louis", poi_type="restaurant",
              items=("burnt ends", "cornbread", "baked beans"), modifier="house",
              staff=(("our server", "Mae"), ("the owner", "Gus")))


def test_fill_resolves_nested_slots_and_capitalises():
    rng = np.random.default_rng(0)
    text = fill(rng, "{other} was no match for {name}.", VOICE)
    assert "{" not in text and text[0].isupper() and text.endswith("Jansen Pit.")
    assert fill(rng, "{item} and {item2}", VOICE).lower().split(" and ")[0] in VOICE.items


def test_fill_nested_slot_uses_the_voice():
    rng = np.random.default_rng(1)
    seen = {fill(rng, "{other}", VOICE) for _ in range(400)}
    assert "Most places in Soulard" in seen


@pytest.mark.parametrize("poi_type", ["restaurant", "hotel", "attraction"])
def test_every_section_has_templates_for_every_mood(poi_type):
    for section in (*SECTIONS, "opener", "closer"):
        for mood in ("pos", "mixed", "neg"):
            assert templates(section, poi_type, mood), (section, poi_type, mood)


def test_body_sentences_are_facet_free_and_avoid_local_repeats():
    voice = draw_voice(np.random.default_rng(2), "The Quiet Oak Grill", "Midtown", "Reno", "restaurant", "bbq", ["Lou"])
    rng, local = np.random.default_rng(3), []
    for _ in range(60):
        s = body_sentence(rng, voice, "narrative", "pos", set(), local)
        if s is not None:
            assert not _exact(s) and s not in local
            local.append(s)
    assert len(local) >= 20


def test_voice_items_come_from_the_style_bank():
    voice = draw_voice(np.random.default_rng(5), "X", "Y", "Z", "restaurant", "thai", ["Lou", "Ada"])
    assert set(voice.items) <= set(grammar()["items"]["restaurant"]["thai"]) and len(set(voice.items)) == 3
    assert len({r for r, _ in voice.staff}) == 2
