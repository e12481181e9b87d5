"""DSTBaseline (paper Appendix F): per-turn dialogue-state tracking, filtering, TF-IDF, reply.

1. For every user turn so far, :class:`ExtractStateDelta` extracts a ``TourismDialogueState``
   delta (price ceiling, wanted / avoided styles, ambience, noise level, required features,
   location) given the state before that turn (calls are cached, so earlier turns replay).
2. Deltas merge into a cumulative state: scalars take the latest non-null value, lists are
   unions, an avoided style is removed from the wanted ones; rejected POIs are the ones the
   user turned down (``TurnContext.rejected_poi_ids``).
3. A candidate passes the filter when (each test :func:`trace_crs.kb.satisfaction.satisfies`):
   price ≤ ceiling (unknown price passes); style in the wanted styles (if any; a matching
   category also counts) and not avoided; noise equals the wanted level (``quiet`` also
   accepts ``average``; unknown passes); every required feature present; and no value the
   user said they do not want ("nothing loud", "no kids") — read from the text by the public
   preference reader (:func:`trace_crs.baselines.preferences.stated_preferences` ``.avoid``),
   beside the LLM state, so the state prompt is unchanged.
4. Ranking: passing candidates by TF-IDF, then the others by TF-IDF, rejected last (DST
   reranks the full pool, also open-set).  5. :class:`RespondWithState` writes the reply over
   the top cards conditioned on the structured state.  ``Usage.mode`` is ``pipeline``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import dspy

from trace_crs.baselines import llm_common
from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.llm_common import Evidence, LLMBaseline
from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.kb.satisfaction import satisfies
from trace_crs.kb.schema import POI
from trace_crs.prompts import signature

NOISE_OK = {"quiet": {"quiet", "average"}, "average": {"average"}, "loud": {"loud", "average"}}


ExtractStateDelta = signature("extract_state_delta", __name__)
RespondWithState = signature("respond_with_state", __name__)


def _norm(values: list[str] | None) -> list[str]:
    return sorted({str(v).strip().lower().replace(" ", "_") for v in values or [] if str(v).strip()})


@dataclass
class DialogueState:
    """The cumulative TourismDialogueState."""

    price_max: int | None = None
    styles: list[str] = field(default_factory=list)
    avoid_styles: list[str] = field(default_factory=list)
    ambience: list[str] = field(default_factory=list)
    noise: str | None = None
    features: list[str] = field(default_factory=list)
    location: str | None = None
    rejected: list[str] = field(default_factory=list)

    def merge(self, delta: dspy.Prediction) -> DialogueState:
        """New state: latest non-null scalars, list unions, avoided styles removed from wanted."""
        price = delta.price_max if delta.price_max is not None else self.price_max
        if price is not None and not 1 <= int(price) <= 4:
            price = self.price_max
        noise = str(delta.noise).strip().lower() if delta.noise else self.noise
        avoid = _norm(self.avoid_styles + _norm(delta.avoid_styles))
        styles = [s for s in _norm(self.styles + _norm(delta.styles)) if s not in avoid]
        return DialogueState(
            int(price) if price is not None else None,
            styles,
            avoid,
            _norm(self.ambience + _norm(delta.ambience)),
            noise if noise in NOISE_OK else self.noise,
            _norm(self.features + _norm(delta.features)),
            delta.location or self.location,
            list(self.rejected),
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def passes(poi: POI, state: DialogueState) -> bool:
    """The state filter of step 3 (module docstring): every per-constraint test is
    :func:`trace_crs.kb.satisfaction.satisfies`; DST's leniency (unknown price or noise
    passes, ``quiet`` also accepts ``average``, a wanted style may match a category) is
    layered on top of it."""

    def ok(facet: str, value: object, lenient: bool = False) -> bool:
        return satisfies(poi, (facet, value), unknown_passes=lenient)

    cats = {c.lower().replace(" ", "_") for c in poi.categories}
    if state.price_max is not None and not ok("price_max", state.price_max, lenient=True):
        return False
    if state.styles and not (any(ok("style", s) for s in state.styles) or cats & set(state.styles)):
        return False
    if any(ok("style", s) for s in state.avoid_styles):
        return False
    if state.noise and not any(ok("noise", n, lenient=True) for n in NOISE_OK[state.noise]):
        return False
    return all(ok("features", f) for f in state.features)


class DSTModule(dspy.Module):
    """State extraction per user turn → filter → TF-IDF → state-conditioned reply."""

    def __init__(self) -> None:
        super().__init__()
        self.extract = dspy.Predict(ExtractStateDelta)
        self.respond = dspy.Predict(RespondWithState)

    def track(self, ctx: TurnContext) -> DialogueState:
        state = DialogueState()
        for text in ctx.user_texts:
            state = state.merge(self.extract(previous_state=state.to_json(), user_message=text))
        state.rejected = sorted(ctx.rejected_poi_ids)
        return state

    def forward(self, ctx: TurnContext, mode: str, seed: int) -> dspy.Prediction:
        from trace_crs.baselines.tfidf import tfidf_scores

        state = self.track(ctx)
        tfidf = tfidf_scores(ctx)
        avoided = stated_preferences(ctx.user_texts, names=ctx.place_names).avoid
        ok = [
            passes(ctx.kb.pois[c], state) and not any(satisfies(ctx.kb.pois[c], a) for a in avoided)
            for c in ctx.candidates
        ]
        ranked = rank_by_score(
            ctx.candidates, [s + (2.0 if k else 0.0) for s, k in zip(tfidf, ok, strict=False)], ctx.rejected_poi_ids
        )  # cosine ≤ 1 < 2: passing ones first
        evidence = Evidence()
        pred = self.respond(
            conversation=llm_common.history_text(ctx.history),
            state=state.to_json(),
            places=llm_common.cards_text(ctx.kb, ranked[:3], evidence),
            instruction=llm_common.instruction(ctx.action),
        )
        return dspy.Prediction(
            ranked_poi_ids=ranked,
            text=pred.response,
            state=state,
            citations=llm_common.extract_citations(pred.response, evidence, ctx.kb),
        )


class DSTBaseline(LLMBaseline, key="dst"):
    """Preference state tracking (LLM) + filtering + TF-IDF ranking + LLM reply."""

    ranks_with_llm: ClassVar[bool] = False

    def build_module(self) -> dspy.Module:
        return DSTModule()
