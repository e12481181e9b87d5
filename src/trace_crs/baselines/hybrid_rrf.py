"""HybridRRFBaseline (paper Appendix F): Reciprocal Rank Fusion
``RRF(p) = Σ_r 1 / (k + rank_r(p))`` with ``k = 60`` and 1-based ranks, over four rankers:
TF-IDF, Aspect, Dense and structured attributes (stars, minus one per price level above the
stated price ceiling).  Each component ranking already demotes rejected POIs.  If the dense
encoder cannot be loaded (``ImportError``/``OSError``) the fusion runs over the other three.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from trace_crs.baselines.aspect import aspect_scores
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.dense import DenseBaseline, dense_scores
from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.kb import KB

RRF_K = 60


def attribute_scores(ctx: TurnContext) -> np.ndarray:
    """``stars − max(0, price − stated ceiling)`` (no penalty without a ceiling or a price)."""
    ceiling = stated_preferences(ctx.user_texts, ctx.poi_type, ctx.place_names).price_max
    out = []
    for c in ctx.candidates:
        poi = ctx.kb.pois[c]
        over = max(0, poi.price - ceiling) if ceiling is not None and poi.price is not None else 0
        out.append(poi.stars - over)
    return np.array(out, dtype=float)


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """``{id: Σ_r 1/(k + rank_r(id))}`` over the given rankings (1-based ranks)."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for pos, pid in enumerate(ranking, start=1):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (k + pos)
    return fused


class HybridRRFBaseline(Registered, key="hybrid_rrf"):
    """Multi-signal fusion (S + A + D + attributes)."""

    def __init__(self) -> None:
        self.dense: DenseBaseline | None = DenseBaseline()

    def prepare(self, kb: KB) -> None:
        """Load or compute the POI embeddings; drop the dense signal if the encoder is missing."""
        try:
            cast(DenseBaseline, self.dense).prepare(kb)  # set in __init__; None only after this fails
        except (ImportError, OSError):
            self.dense = None

    def warm(self, contexts: Sequence[TurnContext]) -> None:
        """Batch the dense query embeddings (see :meth:`DenseBaseline.warm`)."""
        if self.dense is not None:
            self.dense.warm(contexts)

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        signals = [tfidf_scores(ctx), aspect_scores(ctx), attribute_scores(ctx)]
        if self.dense is not None:
            signals.append(dense_scores(ctx))
        rejected = ctx.rejected_poi_ids
        fused = rrf_fuse([rank_by_score(ctx.candidates, s, rejected) for s in signals])
        ranked = rank_by_score(ctx.candidates, [fused.get(c, 0.0) for c in ctx.candidates], rejected)
        return template_output(ctx, ranked)
