"""Sentence categories (App. L) on hand-written sentences."""
from __future__ import annotations

import math

import pytest

from trace_crs.metrics.sentence_categories import categorize, composition
from trace_crs.segment import split_sentences


@pytest.mark.parametrize("sentence,category", [
    ('One reviewer said: "The pasta was great. Go early." [R1].', "quote"),
    ("Luigi Trattoria is rated 4.5 stars across 120 reviews, price $$.", "rating_meta"),
    ("It costs $$ and is open late.", "rating_meta"),
    ("I'd suggest Luigi Trattoria.", "framing"),
    ("Here are two options: Luigi and Roma.", "framing"),
    ("Another option is Sushi Zen.", "framing"),
    ("I would lean towards Luigi.", "framing"),
    ("Reviews of Luigi often mention quiet and patio.", "other_claim"),
    ("The patio is lovely in the evening.", "other_claim"),
])
def test_categorize(sentence, category):
    assert categorize(sentence) == category


def test_split_keeps_quoted_sentences_together():
    text = 'I\'d suggest A. One reviewer said: "Great food. Nice staff!" [R1]. A is rated 4.0 stars.'
    assert split_sentences(text) == ["I'd suggest A.", 'One reviewer said: "Great food. Nice staff!" [R1].',
                                     "A is rated 4.0 stars."]


def test_composition_shares():
    out = composition(['I\'d suggest A. Someone said "x y z" [R1]. It is quiet.', "A is rated 4.0 stars."])
    assert out == {"quote": 0.25, "framing": 0.25, "rating_meta": 0.25, "other_claim": 0.25, "n_sentences": 4}
    assert math.isnan(composition([""])["quote"])


# Quote forms the reader (dialogues/quote_reader.py) reads, each worked by hand.
@pytest.mark.parametrize("sentence,category", [
    ("One guest wrote \u201cthe pasta was great\u201d [R1].", "quote"),           # typographic “…” [Rn]
    ("One guest wrote \u201ethe pasta was great\u201c [R1].", "quote"),           # „…“
    ("One guest wrote \u00abthe pasta was great\u00bb [R1].", "quote"),           # «…»
    ('[R1] "the pasta was great" sums it up.', "quote"),                         # label first
    ('One guest wrote "the pasta was great" [R1, R2].', "quote"),                # label group
    ("They call it \u201cthe best in town\u201d.", "quote"),                      # unlabelled typographic
    ("It is a \u201dquiet\u201d place.", "other_claim"),                          # a closing mark opens nothing
    ("Rated 4.5 stars \u201c by locals.", "rating_meta"),                          # an unpaired mark: no quote
])
def test_categorize_reader_forms(sentence, category):
    assert categorize(sentence) == category


@pytest.mark.parametrize("text,sentences", [
    # a typographic quote holding two review sentences stays one sentence, as a straight one does
    ("I'd suggest A. One guest wrote \u201cGreat food. Nice staff!\u201d [R1]. A is rated 4.0 stars.",
     ["I'd suggest A.", "One guest wrote \u201cGreat food. Nice staff!\u201d [R1].", "A is rated 4.0 stars."]),
    # label first, typographic: joined the same way
    ("Try A. [R2] \u00abLoved it. Will return.\u00bb Also quiet.",
     ["Try A.", "[R2] \u00abLoved it. Will return.\u00bb Also quiet."]),
    # an unlabelled typographic quote is kept whole, as an unlabelled straight one is
    ("They said \u201cgreat. really\u201d. Fine.", ["They said \u201cgreat. really\u201d.", "Fine."]),
    ("", []),
])
def test_sentences_keep_every_quote_form_whole(text, sentences):
    assert split_sentences(text) == sentences


def test_composition_typographic_equals_straight():
    straight = 'I\'d suggest A. One guest wrote "Great food. Nice staff!" [R1]. It is quiet.'
    curly = straight.replace('"Great', "\u201cGreat").replace('!"', "!\u201d")
    assert composition([curly]) == composition([straight]) == {
        "quote": 1 / 3, "framing": 1 / 3, "rating_meta": 0.0, "other_claim": 1 / 3, "n_sentences": 3}
