"""Sentence categories (App. L) on hand-written sentences."""
from __future__ import annotations

import math

import pytest

from trace_crs.metrics.sentence_categories import categorize, composition, split_sentences


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
