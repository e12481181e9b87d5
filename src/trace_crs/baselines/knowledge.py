"""KnowledgeEnhancedBaseline (paper Table 8: attribute-constraint matching, "S+KB").

Facets the user stated (:func:`trace_crs.baselines.preferences.stated_preferences`: style,
noise, ambience, features, price ceiling) are matched against ``POI.attributes`` / ``POI.price``.
``score(p) = satisfied(p) + mm(tfidf(p))`` — the count of met constraints dominates and the
min-max-scaled TF-IDF cosine (in [0, 1]) orders POIs meeting equally many.
"""

from __future__ import annotations

import numpy as np

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.preferences import satisfied, stated_preferences
from trace_crs.baselines.ranking import minmax, rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.kb import KB


def knowledge_scores(ctx: TurnContext) -> np.ndarray:
    """Constraints met plus scaled TF-IDF, per candidate."""
    stated = stated_preferences(ctx.user_texts, ctx.poi_type, ctx.place_names)
    met = np.array([satisfied(ctx.kb.pois[c], stated) for c in ctx.candidates], dtype=float)
    return met + minmax(tfidf_scores(ctx))


class KnowledgeBaseline(Registered, key="knowledge"):
    """Attribute-constraint matching over the KB's structured facets."""

    def prepare(self, kb: KB) -> None:
        """Nothing beyond the shared TF-IDF indexes."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return template_output(ctx, rank_by_score(ctx.candidates, knowledge_scores(ctx), ctx.rejected_poi_ids))
