"""kb.review_writer: sentiment, mention assignment, length cap."""
import numpy as np
import pytest

from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.review_writer import (
    assign_mentions, facet_sentence, poi_mentions, sentiment, write_review,
)
from trace_crs.kb.schema import REVIEW_MAX_CHARS


@pytest.mark.parametrize("stars,mood", [(1, "neg"), (2, "neg"), (3, "mixed"), (4, "pos"), (5, "pos")])
def test_sentiment(stars, mood):
    assert sentiment(stars) == mood


def test_poi_mentions_golden():
    attrs = {"style": "thai", "noise": None, "ambience": ["cozy"], "features": ["wifi", "parking"]}
    # price 2 is expressed by ceiling-$$ phrases (kb.price: budget words); noise None is skipped
    assert poi_mentions(attrs, 2) == [("style", "thai"), ("price", "2"), ("ambience", "cozy"),
                                      ("features", "wifi"), ("features", "parking")]
    assert poi_mentions({"style": None, "noise": None, "ambience": [], "features": []}, None) == []


@pytest.mark.parametrize("n_style,n_reviews", [(0, 3), (1, 3), (2, 20)])
def test_style_and_price_are_named_at_least_once(n_style, n_reviews):
    mentions = [("style", f"s{i}") for i in range(n_style)] + [("features", "wifi")]
    slots = assign_mentions(np.random.default_rng(0), mentions, n_reviews)
    assert len(slots) == n_reviews
    assert {m for s in slots for m in s if m[0] == "style"} == set(mentions[:n_style])
    assert all(len(s) == len(set(s)) for s in slots)           # no duplicate within a review


def test_other_facets_follow_their_calibrated_rate():
    """wifi is named in 1.13 % of real reviews of businesses with wifi (review bank, from Yelp);
    over 20,000 reviews the share must lie within 4 binomial standard errors of it."""
    from trace_crs.kb.review_writer import mention_rate
    rate, n = mention_rate(("features", "wifi")), 20_000
    slots = assign_mentions(np.random.default_rng(1), [("features", "wifi")], n)
    share = sum(("features", "wifi") in s for s in slots) / n
    assert rate == pytest.approx(0.0113) and abs(share - rate) < 4 * (rate * (1 - rate) / n) ** 0.5
    assert mention_rate(("features", "gym")) == mention_rate(("any", "unmapped"))  # the pooled rate


def test_facet_sentence_contains_its_keyword():
    rng = np.random.default_rng(1)
    for mood in ("pos", "mixed", "neg"):
        s = facet_sentence(rng, ("features", "pool"), mood)
        assert [v for v, _, _ in find_facets(s, "features")] == ["pool"]
        assert s[0].isupper() and s.endswith(".")


def test_write_review_expresses_mentions_and_respects_cap():
    rng = np.random.default_rng(2)
    mentions = [("style", "museum"), ("noise", "quiet"), ("ambience", "historic"),
                ("features", "guided_tours"), ("features", "parking")]
    for stars in (1, 3, 5):
        text = write_review(rng, "attraction", stars, mentions, [], "quiet")
        assert len(text) <= REVIEW_MAX_CHARS
        for facet, value in mentions:
            assert value in [v for v, _, _ in find_facets(text, facet)], (facet, value, text)


def test_write_review_empty_mentions_has_no_facet_keywords():
    text = write_review(np.random.default_rng(5), "hotel", 4, [], [], None)
    assert text and all(find_facets(text, f) == [] for f in ("style", "noise", "ambience", "features", "price"))
