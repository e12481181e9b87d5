"""kb.review_writer: sentiment, mention assignment, length cap."""
import numpy as np
import pytest

from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.review_grammar import Voice, facet_hits
from trace_crs.kb.review_writer import (
    QUOTABLE_MAX_CHARS, assign_mentions, draw_target_length, facet_sentence, poi_mentions, review_lengths, sentiment,
    write_review,
)
from trace_crs.dialogues.quotes import sentence_window
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


VOICE = Voice(name="Harlow Museum", hood="Midtown", city="Tucson", poi_type="attraction",
              items=("east wing", "lookout tower", "main hall"), modifier="new",
              staff=(("our guide", "Rosa"), ("a volunteer", "Otis")))


def test_facet_sentence_with_voice_is_anchored_short_and_names_only_its_value():
    rng, used = np.random.default_rng(3), set()
    for mood in ("pos", "mixed", "neg"):
        for _ in range(20):
            s = facet_sentence(rng, ("ambience", "historic"), mood, VOICE, used)
            assert facet_hits(s) == {("ambience", "historic")} and len(s) <= QUOTABLE_MAX_CHARS
            assert any(a in s for a in ("Harlow Museum", "Midtown", *VOICE.items)), s
            assert s not in used
            used.add(s)


def test_write_review_expresses_mentions_and_respects_cap():
    rng, used = np.random.default_rng(2), set()
    mentions = [("style", "museum"), ("noise", "quiet"), ("ambience", "historic"),
                ("features", "guided_tours"), ("features", "parking")]
    for stars in (1, 3, 5):
        text = write_review(rng, VOICE, stars, mentions, [], "quiet", used)
        assert len(text) <= REVIEW_MAX_CHARS
        for facet, value in mentions:
            assert value in [v for v, _, _ in find_facets(text, facet)], (facet, value, text)


def test_write_review_empty_mentions_has_no_facet_keywords():
    voice = Voice(name="The Olsen Inn", hood="Downtown", city="Reno", poi_type="hotel", items=("robes", "courtyard", "bedding"),
                  modifier="house", staff=(("the concierge", "Lou"), ("the manager", "Ada")))
    for seed in range(20):
        text = write_review(np.random.default_rng(seed), voice, 4, [], [], None)
        assert text and all(find_facets(text, f) == [] for f in ("style", "noise", "ambience", "features", "price"))


def test_sentences_never_repeat_across_reviews_sharing_a_used_set():
    """Facet and opening sentences are registered KB-wide: 200 reviews of one POI about the same
    facet hold 200 distinct facet sentences and distinct texts."""
    rng, used = np.random.default_rng(4), set()
    texts = [write_review(rng, VOICE, 5, [("features", "parking")], [], None, used) for _ in range(200)]
    quotes = [t[a:b] for t in texts for v, a0, b0 in find_facets(t, "features")
              for a, b in [sentence_window(t, a0, b0)]]
    assert len(set(texts)) == 200 and len(quotes) == 200 and len(set(quotes)) == 200


def test_target_lengths_follow_the_yelp_quantiles():
    """Inverse-CDF draws: the empirical quartiles of 20,000 draws lie within 3 % of the stored
    quantiles' quartiles (an independent check of the interpolation)."""
    qs = review_lengths()["quantiles"]
    rng = np.random.default_rng(0)
    draws = np.array([draw_target_length(rng) for _ in range(20_000)])
    assert draws.min() >= qs[0] and draws.max() <= qs[-1]
    for p in (25, 50, 75):
        assert abs(np.percentile(draws, p) - qs[p * (len(qs) - 1) // 100]) <= 0.03 * qs[-1]
