"""The public preference reader on 50+ requests written by hand the way travellers type them
(``data/real_requests.yaml``: prices, negation, features, locations, typos/emoji/case, several
wishes at once, rejections in plain words).  Each case agrees with its hand reading, field by
field, unless the fixture records a ``gap`` — a known disagreement, kept visible: the test then
checks the disagreement is still there, so a later fix shows up and the gap is removed."""
from __future__ import annotations

import pytest

from real_requests import disagreements, load_cases
from trace_crs.baselines.reader_text import fold

CASES = list(load_cases())


@pytest.mark.parametrize(("category", "case"), CASES, ids=[f"{c}:{k['text'][:40]}" for c, k in CASES])
def test_reader_agrees_with_the_hand_reading(category, case):
    diff = disagreements(case)
    if "gap" in case:
        assert diff, f"known gap now read as a person would — drop its `gap`: {case['gap']}"
    else:
        assert not diff, diff


def test_fixture_covers_every_category_with_enough_cases():
    per: dict[str, int] = {}
    for category, _ in CASES:
        per[category] = per.get(category, 0) + 1
    assert len(CASES) >= 40 and min(per.values()) >= 5, per


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("a cozy café", "a cozy cafe"),                      # accent folded
        ("no loud bars", "no loud bar "),                   # plural of a one-word keyword, padded
        ("art galleries", "art gallery  "),                 # -ies → -y
        ("burgers and tacos", "burgers and tacos"),         # plurals that are keywords stay
        ("The Morning Gardens", "The Morning Gardens"),     # title case: a name, not folded
        ("Pools are a no", "pool  are a no"),               # opens its sentence, lower-case next: grammar
        ("ok. Museums?", "ok. museum ?"),                   # opens its sentence, its end next
        ("Gardens Hotel is full", "Gardens Hotel is full"),  # a title-case word next: a name
        ("we loved Gardens", "we loved Gardens"),           # title case inside a sentence: a name
        ("kid friendly, laid back", "kid-friendly, laid-back"),  # spaced hyphenated keywords
        ("it shows 🍣", "it show  🍣"),                      # emoji kept; "shows" is the plural of "show"
        ("somewhere calmer, cozier", "somewhere calm  , cozy  "),  # comparatives of noise/ambience keywords
        ("later, a nicer one", "later, a nicer one"),        # not features ("late"), not non-keywords
        ("", ""),
    ],
)
def test_fold_keeps_length_and_offsets(text, folded):
    assert fold(text) == folded and len(fold(text)) == len(text)


@pytest.mark.parametrize(
    ("second", "kept"),
    [
        ("I'd rather skip Kitchen Thibodeaux.", True),    # rejects a named place: earlier wishes stand
        ("Let's skip Taco Loco, it's too far.", True),
        ("Scratch that.", False),                        # withdraws the previous sentence's wishes
        ("Actually, never mind.", False),
        ("forget it, somewhere calm instead", False),
    ],
)
def test_a_retraction_is_not_a_rejection_by_name(second, kept):
    from trace_crs.baselines.preferences import stated_preferences

    s = stated_preferences(["Somewhere lively with a patio.", second])
    assert (s.ambience, s.features) == ((("lively",), ("outdoor_seating",)) if kept else ((), ()))


@pytest.mark.parametrize(
    ("text", "inside"),
    [
        ("somewhere near the French Quarter", ["French Quarter"]),          # after a proximity cue
        ("we'd like to walk to Hyde Park, quiet", ["Hyde Park"]),           # stops at the comma
        ("close to downtown with a patio", ["downtown"]),                   # stops at "with"
        ("stay in the french quarter", ["french quarter"]),                 # keyword + place noun
        ("Our budget is $15", ["Our budget"]),                              # the noun, not the hotel style
        ("we're on a budget this time", ["a budget"]),                      # after an article
        ("student budget, a budget hotel", ["student budget"]),            # "budget hotel": the style
        ("we'll walk around a park", []),                                   # an activity, no place
        ("not surrounded by children", []),                                 # "by" alone opens none
        ("a walking tour", []),                                             # the cue is part of a keyword
    ],
)
def test_place_spans(text, inside):
    from trace_crs.baselines.reader_text import place_spans
    from trace_crs.kb.facets import FACET_KEYS
    from trace_crs.kb.lexicon import find_facets

    mentions = [(s, e, f, v) for f in FACET_KEYS for v, s, e in find_facets(text, f)]
    assert sorted({text[s:e] for s, e in place_spans(text, mentions)}) == inside


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("do they allow dogs?", ["allow dogs"]),
        ("dogs welcome, please", ["dogs welcome"]),
        ("somewhere I can bring the dog", ["bring the dog"]),
        ("we're bringing our pup", ["bringing our pup"]),
        ("a hot dog stand", []),
        ("can we sit outside?", ["sit outside"]),
        ("dining outdoors tonight", ["dining outdoors"]),
        ("away from the tourist traps", ["tourist traps"]),
        ("a tourist information desk", []),                  # the noun without a crowd noun
        ("not packed with tourists", ["packed with tourists"]),
    ],
)
def test_extra_mentions(text, found):
    from trace_crs.baselines.reader_text import extra_mentions

    assert [text[s:e] for s, e, _, _ in extra_mentions(text)] == found
