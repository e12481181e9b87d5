"""MultiReviewSynthesisBaseline (paper Appendix F): aspect clustering + consensus, LLM synthesis.

1. Clustering: every review sentence of a candidate joins the cluster of each aspect it
   mentions (food, service, ambiance, value, location; keywords and sentence sentiment of
   :mod:`trace_crs.baselines.aspect`).
2. Consensus of aspect ``a`` at POI ``p``: ``c_a(p) = (n⁺ − n⁻) / n_a`` over the ``n_a``
   sentences of the cluster, ``n⁺`` / ``n⁻`` those with positive / negative sentiment
   (0 when ``n_a = 0``), in [−1, 1].
3. Ranking (full pool, also open-set): ``Σ_a w_a c_a(p)`` with the query aspect weights
   ``w_a``, rejected POIs last.  Frequencies of consensus barely move after one rejection —
   the recovery failure the paper reports (Finding 3a).
4. :class:`SynthesizeAspects` writes an aspect-focused reply from the consensus summaries
   of the top POIs (no review excerpts are shown, so it rarely quotes).  ``Usage.mode`` is
   ``pipeline``.
"""

from __future__ import annotations

from typing import ClassVar

import dspy
import numpy as np

from trace_crs.baselines.aspect import ASPECTS, aspect_weights, sentence_aspects
from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.llm_common import LLMBaseline, facts, history_text, instruction
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.text import query_text
from trace_crs.cache import memo
from trace_crs.kb import KB
from trace_crs.prompts import signature
from trace_crs.segment import sentence_spans

SynthesizeAspects = signature("synthesize_aspects", __name__)


def consensus(kb: KB, poi_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(c_a, n⁺, n⁻, n_a)`` per aspect for one POI (memoised per KB)."""
    cache = memo(kb, "mrs_consensus")
    if poi_id not in cache:
        pos, neg, n = np.zeros(len(ASPECTS)), np.zeros(len(ASPECTS)), np.zeros(len(ASPECTS))
        for review in kb.reviews_of(poi_id):
            for a, b in sentence_spans(review.text):
                for aspect, value in sentence_aspects(review.text[a:b], review.stars).items():
                    k = ASPECTS.index(aspect)
                    n[k] += 1
                    pos[k] += value > 0
                    neg[k] += value < 0
        cache[poi_id] = (np.divide(pos - neg, n, out=np.zeros(len(ASPECTS)), where=n > 0), pos, neg, n)
    return cache[poi_id]


def summary(kb: KB, poi_id: str) -> str:
    """``facts`` + one ``aspect: x positive, y negative of n sentences`` clause per mentioned aspect."""
    _, pos, neg, n = consensus(kb, poi_id)
    parts = [
        f"{a}: {int(p)} positive, {int(q)} negative of {int(k)} sentences"
        for a, p, q, k in zip(ASPECTS, pos, neg, n, strict=False)
        if k > 0
    ]
    return f"[{poi_id}] {facts(kb, poi_id)}\n  " + ("; ".join(parts) if parts else "no aspect consensus")


class MRSModule(dspy.Module):
    """Consensus ranking over the full pool + LLM aspect synthesis."""

    def __init__(self) -> None:
        super().__init__()
        self.synthesize = dspy.Predict(SynthesizeAspects)

    def forward(self, ctx: TurnContext, mode: str, seed: int) -> dspy.Prediction:
        w = aspect_weights(query_text(ctx.user_texts))
        scores = [float(w @ consensus(ctx.kb, c)[0]) for c in ctx.candidates]
        ranked = rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)
        pred = self.synthesize(
            conversation=history_text(ctx.history),
            aspect_consensus="\n".join(summary(ctx.kb, c) for c in ranked[:3]),
            instruction=instruction(ctx.action),
        )
        return dspy.Prediction(ranked_poi_ids=ranked, text=pred.response, citations=[])


class MultiReviewSynthesisBaseline(LLMBaseline, key="mrs"):
    """Aspect-consensus synthesis (LLM writes the reply; ranking is the consensus score)."""

    ranks_with_llm: ClassVar[bool] = False

    def build_module(self) -> dspy.Module:
        return MRSModule()
