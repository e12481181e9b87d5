"""Popularity, TF-IDF, Aspect, Persona, Knowledge and Hybrid-RRF on the hand-built KB."""
import math
import re
from collections import Counter

import numpy as np
import pytest
from helpers import after_rejection, first_turn
from tinykb import RESTAURANTS

from trace_crs.baselines.aspect import AspectBaseline, aspect_weights
from trace_crs.baselines.hybrid_rrf import attribute_scores, rrf_fuse
from trace_crs.baselines.knowledge import KnowledgeBaseline
from trace_crs.baselines.persona import PersonaBaseline, persona_prior
from trace_crs.baselines.popularity import PopularityBaseline, fallback_output
from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.text import STOP_WORDS
from trace_crs.baselines.tfidf import TfidfBaseline, poi_document, tfidf_scores


def test_popularity_order(kb):
    # stars · ln(1 + n): r2 22.83, r3 21.76, r1 21.58, r7 19.73, r6 18.46, r5 14.85, r8 12.38, r4 7.19
    out = PopularityBaseline().predict(first_turn(kb, "anything"))
    assert out.ranked_poi_ids == ["r2", "r3", "r1", "r7", "r6", "r5", "r8", "r4"]
    # framing, rating-meta, two quotes from distinct reviews (higher-starred first); no user word
    # occurs in the reviews, so no uncited claim; then the second option with one quote
    assert out.text == ('I\'d suggest Taco Loco, a mexican spot. Taco Loco is rated 4.0 stars across 300 reviews, '
                        'price $ (cheap). One reviewer said: "Cheap tacos and great burritos." [R1]. Another wrote: '
                        '"Very loud and crowded on weekends but the salsa is fresh." [R2]. Another option is Sushi '
                        'Zen, a japanese spot. A guest noted: "Elegant room and the ramen broth was rich and deep." [R3].')
    assert [c["review_id"] for c in out.citations] == ["rv_r2_1", "rv_r2_2", "rv_r3_2"]


def test_template_adds_an_uncited_claim_beyond_the_quotes_shown(kb):
    # quotes: the best-overlap sentence per review — "The value is amazing for the price." (value,
    # price: 2 terms) and "Very loud ... salsa is fresh." (salsa); "tacos" is in the reviews but
    # in no quoted sentence, so it becomes the uncited claim
    out = PopularityBaseline().predict(first_turn(kb, "tacos and salsa with good value for the price"))
    assert '"The value is amazing for the price." [R1]' in out.text
    assert "Reviews also mention tacos." in out.text


def test_popularity_demotes_rejected_and_fallback_flags(kb):
    ctx = after_rejection(kb, "anything", "r2")
    assert PopularityBaseline().predict(ctx).ranked_poi_ids[-1] == "r2"
    fb = fallback_output(ctx, "TimeoutError: boom")
    assert fb.usage.fallback and fb.usage.error == "TimeoutError: boom"
    assert fb.ranked_poi_ids[:2] == ["r3", "r1"]


def _hand_tfidf(kb, query):
    """Independent TF-IDF: 1+ln tf, ln((1+N)/(1+df))+1, L2 rows, cosine."""
    ids = kb.pois_in("Tampa", "restaurant")
    toks = lambda s: [t for t in re.findall(r"[a-z0-9']+", s.lower()) if t not in STOP_WORDS]  # noqa: E731
    docs = [Counter(toks(poi_document(kb, i))) for i in ids]
    vocab = sorted(set().union(*docs))
    df = {t: sum(t in d for d in docs) for t in vocab}
    idf = {t: math.log((1 + len(ids)) / (1 + df[t])) + 1 for t in vocab}
    def vec(c):  # noqa: E306
        v = np.array([(1 + math.log(c[t])) * idf[t] if c.get(t) else 0.0 for t in vocab])
        return v / np.linalg.norm(v) if np.linalg.norm(v) else v
    q = vec(Counter(toks(query)))
    return {i: float(vec(d) @ q) for i, d in zip(ids, docs)}


def test_tfidf_matches_hand_computation(kb):
    ctx = first_turn(kb, "I want sushi and ramen, somewhere quiet.")
    want = _hand_tfidf(kb, "Hi I want sushi and ramen, somewhere quiet.")
    np.testing.assert_allclose(tfidf_scores(ctx), [want[c] for c in ctx.candidates], rtol=1e-9)
    assert TfidfBaseline().predict(ctx).ranked_poi_ids[0] == "r3"


def test_tfidf_scores_are_computed_once_per_turn(kb, monkeypatch):
    from trace_crs.baselines import tfidf

    calls, real = [], tfidf.TfidfIndex.scores
    monkeypatch.setattr(tfidf.TfidfIndex, "scores", lambda self, q, c: calls.append(c) or real(self, q, c))
    ctx = first_turn(kb, "a memo check about tacos")
    first = tfidf_scores(ctx)
    assert tfidf_scores(ctx) is first and not first.flags.writeable   # what Spatial, Knowledge, … reuse
    narrower = tfidf_scores(first_turn(kb, "a memo check about tacos", candidates=["r2", "r1"]))
    assert calls == [ctx.candidates, ("r2", "r1")]                   # another pool is another key
    assert narrower.tolist() == pytest.approx([first[1], first[0]], rel=1e-12)


def test_tfidf_no_match_keeps_pool_order(kb):
    ctx = first_turn(kb, "zzz qqq")  # no query term in any document: all scores 0
    assert TfidfBaseline().predict(ctx).ranked_poi_ids == RESTAURANTS


def test_tfidf_rejects_foreign_candidate(kb):
    with pytest.raises(ValueError, match="not in this city/type TF-IDF index"):
        tfidf_scores(first_turn(kb, "sushi", candidates=["r1", "h1"]))


def test_aspect_weights():
    assert aspect_weights("great service and friendly staff").tolist() == [0, 1, 0, 0, 0]
    assert aspect_weights("food, cheap").tolist() == [0.5, 0, 0, 0.5, 0]
    assert aspect_weights("hello").tolist() == [0.2] * 5


def test_aspect_service_query(kb):
    # service sentiment: r1 +1 (friendly, attentive), r3 -1 (bland, rude), all others no mention (0)
    ranked = AspectBaseline().predict(first_turn(kb, "service matters most")).ranked_poi_ids
    assert ranked[0] == "r1" and ranked[-1] == "r3"
    assert ranked[1:-1] == [c for c in RESTAURANTS if c not in ("r1", "r3")]  # zero-score tie: pool order


def test_persona_prior_and_ranking(kb):
    assert persona_prior("budget_traveler").tolist() == [0, 0, 0, 1, 0]
    assert persona_prior("unknown_kind").tolist() == [0.2] * 5
    # budget: value weight .6 -> r2 (value +1) = .6 beats r1 (.1 food + .1 service + .1·.5 ambiance = .25)
    assert PersonaBaseline().predict(first_turn(kb, "hello", persona="budget_traveler")).ranked_poi_ids[0] == "r2"
    # date night: ambiance .6 -> r1 = .6·.5 + .1 + .1 = .5 beats r2 = .1
    assert PersonaBaseline().predict(first_turn(kb, "hello", persona="date_night")).ranked_poi_ids[0] == "r1"


def test_stated_preferences_last_mention_wins():
    s = stated_preferences(["somewhere loud and cheap", "too loud, somewhere quiet and romantic with wifi"])
    assert (s.noise, s.price_max, s.ambience, s.features, s.style) == ("quiet", 2, ("romantic",), ("wifi",), None)
    assert s.constraints() == 4 and stated_preferences([]).constraints() == 0


def test_knowledge_constraint_matching(kb):
    # quiet + romantic + cheap (≤ $$, the paper's map): r1 meets 3, r7 (price 4) meets 2, the rest 1 each
    ranked = KnowledgeBaseline().predict(first_turn(kb, "a quiet romantic place, cheap")).ranked_poi_ids
    assert ranked[:2] == ["r1", "r7"] and set(ranked[2:]) == {"r2", "r3", "r4", "r5", "r6", "r8"}


def test_rrf_fuse_by_hand():
    fused = rrf_fuse([["a", "b"], ["b", "a"], ["a", "b"]])
    assert fused["a"] == pytest.approx(2 / 61 + 1 / 62) and fused["b"] == pytest.approx(1 / 61 + 2 / 62)
    assert rrf_fuse([]) == {}


def test_attribute_scores_price_penalty(kb):
    ctx = first_turn(kb, "something cheap", candidates=["r1", "r2", "r7"])
    assert attribute_scores(ctx).tolist() == [4.5, 4.0, 4.8 - 2]  # cheap = ceiling $$
