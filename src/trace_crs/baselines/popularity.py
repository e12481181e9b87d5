"""PopularityBaseline (paper Appendix F): rank by ``stars × ln(1 + review_count)``, ignoring
the dialogue (apart from demoting POIs the user rejected), with template responses; also the
fallback every other baseline returns when it fails (:func:`fallback_output`).
"""

from __future__ import annotations

import math

from trace_crs.baselines.base import BaselineOutput, TurnContext, Usage
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.kb import KB


def popularity_score(stars: float, review_count: int) -> float:
    """``stars · ln(1 + review_count)`` (ln1p keeps a POI with no reviews at 0, not −∞)."""
    return stars * math.log1p(review_count)


def popularity_ranking(ctx: TurnContext) -> list[str]:
    """Candidates by popularity, rejected POIs last, ties in pool order."""
    pois = ctx.kb.pois
    scores = [popularity_score(pois[c].stars, pois[c].review_count) for c in ctx.candidates]
    return rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)


def popularity_output(ctx: TurnContext) -> BaselineOutput:
    """The Popularity ranking with its template response."""
    return template_output(ctx, popularity_ranking(ctx))


def fallback_output(ctx: TurnContext, error: str, usage: Usage | None = None) -> BaselineOutput:
    """Popularity output flagged as a fallback, keeping any usage already spent (LLM tokens)."""
    out = popularity_output(ctx)
    out.usage = usage or Usage()
    out.usage.fallback, out.usage.error = True, error or "unknown error"
    return out


class PopularityBaseline(Registered, key="popularity"):
    """Stars × log review count; no dialogue context."""

    def prepare(self, kb: KB) -> None:
        """Nothing to build."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return popularity_output(ctx)
