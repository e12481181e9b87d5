"""AspectRetrievalBaseline (paper Appendix F).

Five aspects: food, service, ambiance, value, location.  A review sentence mentions aspect
``a`` when it contains one of ``ASPECT_KEYWORDS[a]``; its sentiment is
``(#positive − #negative) / (#positive + #negative)`` over ``SENTIMENT_WORDS`` in that
sentence, or ``(review stars − 3) / 2`` when it has no sentiment word.  ``s_a(p)`` is the mean
over the POI's mentions of ``a`` (0 if none).  The query weight ``w_a`` is the share of the
query's aspect-keyword hits that fall on ``a`` (uniform 1/5 when the query names no aspect).
Score ``Σ_a w_a · s_a(p)``.
"""

from __future__ import annotations

import numpy as np

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.text import query_text, tokenize
from trace_crs.cache import memo
from trace_crs.kb import KB
from trace_crs.segment import sentence_spans

ASPECTS: tuple[str, ...] = ("food", "service", "ambiance", "value", "location")
ASPECT_KEYWORDS: dict[str, frozenset[str]] = {
    "food": frozenset(
        "food dish dishes meal menu taste tasty flavor flavors delicious cuisine breakfast "
        "dinner lunch dessert drinks cocktails wine fresh portions".split()
    ),
    "service": frozenset(
        "service staff server servers waiter waitress friendly attentive rude host "
        "hospitality helpful reception manager welcoming".split()
    ),
    "ambiance": frozenset(
        "ambiance ambience atmosphere decor vibe music quiet loud noisy cozy romantic "
        "lively view views interior setting".split()
    ),
    "value": frozenset(
        "price prices value cheap expensive affordable overpriced budget worth cost " "deal pricey reasonable".split()
    ),
    "location": frozenset(
        "location located downtown walk walking walkable nearby close near parking "
        "neighborhood distance central convenient".split()
    ),
}
SENTIMENT_WORDS: dict[str, frozenset[str]] = {
    "positive": frozenset(
        "good great excellent amazing delicious friendly lovely perfect wonderful best "
        "fantastic nice clean fresh attentive beautiful cozy helpful worth "
        "reasonable convenient tasty awesome".split()
    ),
    "negative": frozenset(
        "bad terrible awful rude slow dirty worst poor overpriced bland noisy cold "
        "disappointing mediocre expensive horrible stale crowded".split()
    ),
}


def aspect_weights(text: str) -> np.ndarray:
    """``w_a``: share of aspect-keyword hits of ``text`` per aspect; uniform when none."""
    tokens = tokenize(text)
    hits = np.array([sum(t in ASPECT_KEYWORDS[a] for t in tokens) for a in ASPECTS], dtype=float)
    return hits / hits.sum() if hits.sum() > 0 else np.full(len(ASPECTS), 1.0 / len(ASPECTS))


def sentence_aspects(sentence: str, review_stars: int) -> dict[str, float]:
    """``{aspect: sentiment}`` for the aspects one sentence mentions."""
    tokens = tokenize(sentence)
    pos = sum(t in SENTIMENT_WORDS["positive"] for t in tokens)
    neg = sum(t in SENTIMENT_WORDS["negative"] for t in tokens)
    sentiment = (pos - neg) / (pos + neg) if pos + neg else (review_stars - 3) / 2
    return {a: sentiment for a in ASPECTS if ASPECT_KEYWORDS[a].intersection(tokens)}


def _profile(kb: KB, poi_id: str) -> np.ndarray:
    sums, counts = np.zeros(len(ASPECTS)), np.zeros(len(ASPECTS))
    for review in kb.reviews_of(poi_id):
        for a, b in sentence_spans(review.text):
            for aspect, value in sentence_aspects(review.text[a:b], review.stars).items():
                k = ASPECTS.index(aspect)
                sums[k] += value
                counts[k] += 1
    return np.divide(sums, counts, out=np.zeros(len(ASPECTS)), where=counts > 0)


def aspect_profile(kb: KB, poi_id: str) -> np.ndarray:
    """``s_a(p)`` for the 5 aspects, memoised per KB."""
    cache = memo(kb, "aspect_profile")
    if poi_id not in cache:
        cache[poi_id] = _profile(kb, poi_id)
    return cache[poi_id]


def aspect_scores(ctx: TurnContext, weights: np.ndarray | None = None) -> np.ndarray:
    """``Σ_a w_a s_a(p)`` per candidate (``weights`` default: from the user-turn query)."""
    w = aspect_weights(query_text(ctx.user_texts)) if weights is None else weights
    return np.array([float(w @ aspect_profile(ctx.kb, c)) for c in ctx.candidates])


class AspectBaseline(Registered, key="aspect"):
    """Multi-aspect decomposition with keyword sentiment."""

    def prepare(self, kb: KB) -> None:
        """Aspect profiles are computed lazily and memoised."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return template_output(ctx, rank_by_score(ctx.candidates, aspect_scores(ctx), ctx.rejected_poi_ids))
