"""The synthetic review text banks obey the keyword rules stated in review_bank.yaml."""
import pytest

from trace_crs.kb.facets import AMBIENCES, FEATURES, NOISE_LEVELS, STYLES
from trace_crs.kb.lexicon import facet_lexicon, find_facets
from trace_crs.kb.review_writer import review_bank


def _hits(text):
    return {(facet, value) for facet in [*facet_lexicon(), "price"] for value, _, _ in find_facets(text, facet)}


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for x in node:
            yield from _strings(x)
    elif isinstance(node, dict):
        for x in node.values():
            yield from _strings(x)


@pytest.mark.parametrize("section", ["openers", "wrappers", "fillers", "closers"])
def test_neutral_sections_carry_no_facet_keyword(section):
    offenders = [(s, _hits(s)) for s in _strings(review_bank()[section]) if _hits(s)]
    assert offenders == []


def test_each_phrase_expresses_exactly_its_own_facet_value():
    offenders = []
    for facet, values in review_bank()["np"].items():
        for value, phrases in values.items():
            offenders += [(facet, value, p) for p in phrases if _hits(p) != {(facet, str(value))}]
    assert offenders == []


def test_bank_covers_the_whole_vocabulary():
    nps = review_bank()["np"]
    assert set(nps["style"]) == {s for styles in STYLES.values() for s in styles}
    assert set(nps["noise"]) == set(NOISE_LEVELS)
    assert set(nps["ambience"]) == set(AMBIENCES)
    assert set(nps["features"]) == set(FEATURES) == set(review_bank()["negations"])
    assert set(review_bank()["contradictions"]) == set(NOISE_LEVELS)


def test_negations_name_only_their_feature_and_are_negated():
    for feature, sentences in review_bank()["negations"].items():
        for s in sentences:
            assert _hits(s) == {("features", feature)}, s
            assert any(cue in s.lower().split() for cue in ("no", "not", "never", "wish", "nothing")), s


def test_contradictions_name_their_true_level_and_another():
    for level, sentences in review_bank()["contradictions"].items():
        for s in sentences:
            noise = {v for f, v in _hits(s) if f == "noise"}
            assert level in noise and len(noise) == 2, s
