"""PersonaGroundedBaseline (paper Table 8: persona aspect weighting, "A+P").

The persona archetype (``scenario.persona_type``, e.g. ``date_night``, ``business_traveler``)
sets a prior over the 5 aspects of :mod:`trace_crs.baselines.aspect`: each ``_``-separated
word of the type found in ``PERSONA_ASPECTS`` adds its aspects; the prior is normalised
(uniform when no word is known).  Aspect weights ``w = ½ · prior + ½ · w_query`` and
``score(p) = Σ_a w_a s_a(p)`` as in Aspect.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from trace_crs.baselines.aspect import ASPECTS, aspect_scores, aspect_weights
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.responses import render
from trace_crs.baselines.text import content_terms, query_text

PERSONA_ASPECTS: dict[str, tuple[str, ...]] = {
    # words of the 47 archetypes of Appendix I (dialogues/data/personas.yaml) → aspects they weigh
    "food": ("food",), "foodie": ("food",), "brunch": ("food",), "wine": ("food", "ambiance"),
    "dietary": ("food", "service"), "health": ("food", "value"), "fitness": ("location",),
    "business": ("service", "location"), "conference": ("location", "service"), "layover": ("location",),
    "budget": ("value",), "volunteer": ("value",), "nomad": ("value", "location"), "remote": ("value", "service"),
    "extended": ("value", "service"), "nurse": ("value", "location"), "relocation": ("location", "value"),
    "family": ("service", "value"), "senior": ("service", "location"), "accessibility": ("location", "service"),
    "medical": ("location", "service"), "pet": ("location", "service"),
    "date": ("ambiance",), "couple": ("ambiance",), "celebration": ("ambiance", "service"),
    "luxury": ("service", "ambiance"), "wellness": ("ambiance", "service"),
    "nightlife": ("ambiance",), "late": ("ambiance", "location"), "music": ("ambiance",),
    "event": ("location", "service"), "group": ("value", "service"), "friends": ("ambiance", "value"),
    "sports": ("location",), "thrill": ("ambiance",), "solo": ("location", "value"),
    "history": ("ambiance", "location"), "architecture": ("ambiance",), "street": ("location",),
    "urban": ("location",), "local": ("food", "location"), "international": ("location", "service"),
    "road": ("location", "value"), "eco": ("location", "value"),
}
PERSONA_SHARE = 0.5


def persona_prior(persona_type: str) -> np.ndarray:
    """Normalised aspect prior of a persona archetype (uniform when no word is known)."""
    counts = np.zeros(len(ASPECTS))
    for word in persona_type.lower().split("_"):
        for aspect in PERSONA_ASPECTS.get(word, ()):
            counts[ASPECTS.index(aspect)] += 1
    return counts / counts.sum() if counts.sum() > 0 else np.full(len(ASPECTS), 1.0 / len(ASPECTS))


def persona_weights(ctx: TurnContext) -> np.ndarray:
    """``½ · prior(persona_type) + ½ · w_query``."""
    prior = persona_prior(ctx.persona_type)
    return PERSONA_SHARE * prior + (1 - PERSONA_SHARE) * aspect_weights(query_text(ctx.user_texts))


class PersonaBaseline:
    """Aspect retrieval re-weighted by the persona archetype."""

    name: ClassVar[str] = "persona"
    display_name: ClassVar[str] = "Persona-Ground."
    uses_llm: ClassVar[bool] = False

    def prepare(self, kb) -> None:  # noqa: ANN001 — protocol signature
        """Aspect profiles are memoised lazily."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        scores = aspect_scores(ctx, weights=persona_weights(ctx))
        ranked = rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)
        text, citations = render(ctx.action, ranked, ctx.kb, content_terms(ctx.user_texts))
        return BaselineOutput(ranked, text, citations)
