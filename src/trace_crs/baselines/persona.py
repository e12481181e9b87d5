"""PersonaGroundedBaseline (paper Table 8: persona aspect weighting, "A+P").

Two persona signals, both public (no leakage, ARCHITECTURE §3: no generator vocabulary or labels):

1. **Aspect prior.** The persona archetype (``scenario.persona_type``, e.g. ``date_night``)
   sets a prior over the 5 aspects of :mod:`trace_crs.baselines.aspect`: each ``_``-separated
   word of the type found in ``PERSONA_ASPECTS`` adds its aspects; the prior is normalised
   (uniform when no word is known).  Aspect weights ``w = ½ · prior + ½ · w_query``.
2. **Learned preference prior** (:class:`PersonaPrior`, what a system trained on past
   conversations knows): from the *other* dialogues of the corpus the runner shows it
   (:meth:`PersonaBaseline.see_corpus`, leave-one-dialogue-out, so a dialogue never informs
   its own predictions and the order of evaluation does not matter), the constraints each
   user stated — decoded from the user turns with the public word list
   (:func:`~trace_crs.baselines.preferences.stated_preferences`) — are counted per
   (persona type, POI type).  A constraint ``c`` gets weight ``log2(p_t(c) / p(c))`` when users
   of persona type ``t`` state it more often than users of the POI type overall, with
   ``p_t(c) = (k_t(c) + α p(c)) / (n_t + α)``, ``α = 5`` (shrinkage towards the base rate).

``score(p) = Σ_a w_a s_a(p) + β · Σ_c w_c [p meets c] / Σ_c w_c`` over the prior's
constraints the user has not stated yet (``β = 1``; a POI meets ``c`` by its public KB
attributes, :func:`trace_crs.kb.satisfaction.satisfies`).  Without :meth:`see_corpus` (one
turn at a time) only the aspect prior applies.  Both constants were fixed before the
evaluation: ``β = 1`` puts the prior's share in [0, 1] beside aspect scores in [−1, 1].
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from trace_crs.baselines.aspect import ASPECTS, aspect_scores, aspect_weights
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.text import query_text
from trace_crs.kb.satisfaction import Constraint, satisfies

PERSONA_ASPECTS: dict[str, tuple[str, ...]] = {
    # words of the 47 archetypes of Appendix I (dialogues/data/personas.yaml) → aspects they weigh
    "food": ("food",),
    "foodie": ("food",),
    "brunch": ("food",),
    "wine": ("food", "ambiance"),
    "dietary": ("food", "service"),
    "health": ("food", "value"),
    "fitness": ("location",),
    "business": ("service", "location"),
    "conference": ("location", "service"),
    "layover": ("location",),
    "budget": ("value",),
    "volunteer": ("value",),
    "nomad": ("value", "location"),
    "remote": ("value", "service"),
    "extended": ("value", "service"),
    "nurse": ("value", "location"),
    "relocation": ("location", "value"),
    "family": ("service", "value"),
    "senior": ("service", "location"),
    "accessibility": ("location", "service"),
    "medical": ("location", "service"),
    "pet": ("location", "service"),
    "date": ("ambiance",),
    "couple": ("ambiance",),
    "celebration": ("ambiance", "service"),
    "luxury": ("service", "ambiance"),
    "wellness": ("ambiance", "service"),
    "nightlife": ("ambiance",),
    "late": ("ambiance", "location"),
    "music": ("ambiance",),
    "event": ("location", "service"),
    "group": ("value", "service"),
    "friends": ("ambiance", "value"),
    "sports": ("location",),
    "thrill": ("ambiance",),
    "solo": ("location", "value"),
    "history": ("ambiance", "location"),
    "architecture": ("ambiance",),
    "street": ("location",),
    "urban": ("location",),
    "local": ("food", "location"),
    "international": ("location", "service"),
    "road": ("location", "value"),
    "eco": ("location", "value"),
}
PERSONA_SHARE = 0.5
ALPHA = 5.0  # pseudo-count of the shrinkage towards the POI type's base rate
BETA = 1.0  # weight of the learned preference prior beside the aspect score


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


@dataclass
class PersonaPrior:
    """Counts of stated constraints per (persona type, POI type) and per POI type, with each
    dialogue's own constraints kept so they can be left out of its own prior."""

    group: dict[tuple[str, str], Counter] = field(default_factory=dict)
    n_group: Counter = field(default_factory=Counter)
    base: dict[str, Counter] = field(default_factory=dict)
    n_base: Counter = field(default_factory=Counter)
    own: dict[str, frozenset[Constraint]] = field(default_factory=dict)

    @classmethod
    def fit(cls, contexts: Sequence[TurnContext]) -> PersonaPrior:
        """From each dialogue's last context (the most user turns any context shows)."""
        last: dict[str, TurnContext] = {}
        for ctx in contexts:
            if ctx.dialogue_id not in last or ctx.turn_index > last[ctx.dialogue_id].turn_index:
                last[ctx.dialogue_id] = ctx
        prior = cls()
        for did in sorted(last):
            ctx = last[did]
            stated = frozenset(stated_preferences(ctx.user_texts, ctx.poi_type, ctx.place_names).as_constraints())
            prior.own[did] = stated
            prior.group.setdefault((ctx.persona_type, ctx.poi_type), Counter()).update(stated)
            prior.n_group[(ctx.persona_type, ctx.poi_type)] += 1
            prior.base.setdefault(ctx.poi_type, Counter()).update(stated)
            prior.n_base[ctx.poi_type] += 1
        return prior

    def weights(self, dialogue_id: str, persona_type: str, poi_type: str) -> dict[Constraint, float]:
        """``{c: log2(p_t(c) / p(c))}`` for the constraints persona type ``t`` over-states,
        leaving dialogue ``dialogue_id`` out of every count."""
        own = self.own.get(dialogue_id, frozenset())
        left = 1 if dialogue_id in self.own else 0
        n_t = self.n_group.get((persona_type, poi_type), 0) - left
        n = self.n_base.get(poi_type, 0) - left
        out: dict[Constraint, float] = {}
        for c, k in sorted(self.group.get((persona_type, poi_type), Counter()).items(), key=repr):
            k_t, k_all = k - (c in own), self.base[poi_type][c] - (c in own)
            if n <= 0 or k_all <= 0:
                continue
            p = k_all / n
            p_t = (k_t + ALPHA * p) / (max(n_t, 0) + ALPHA)
            if p_t > p:
                out[c] = math.log2(p_t / p)
        return out


def prior_boost(ctx: TurnContext, weights: dict[Constraint, float]) -> np.ndarray:
    """Per candidate, the weighted share of the prior's not-yet-stated constraints it meets."""
    stated = set(stated_preferences(ctx.user_texts, ctx.poi_type, ctx.place_names).as_constraints())
    open_ = {c: w for c, w in weights.items() if c not in stated}
    total = sum(open_.values())
    if total <= 0:
        return np.zeros(len(ctx.candidates))
    return np.array([sum(w for c, w in open_.items() if satisfies(ctx.kb.pois[p], c)) / total for p in ctx.candidates])


class PersonaBaseline(Registered, key="persona"):
    """Aspect retrieval re-weighted by the persona archetype."""

    def __init__(self) -> None:
        self.prior: PersonaPrior | None = None

    def prepare(self, kb) -> None:
        """Aspect profiles are memoised lazily."""

    def see_corpus(self, contexts: Sequence[TurnContext]) -> None:
        """Learn the preference prior from the run's dialogues (leave-one-dialogue-out)."""
        self.prior = PersonaPrior.fit(contexts)

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        scores = aspect_scores(ctx, weights=persona_weights(ctx))
        if self.prior is not None:
            weights = self.prior.weights(ctx.dialogue_id, ctx.persona_type, ctx.poi_type)
            scores = scores + BETA * prior_boost(ctx, weights)
        ranked = rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)
        return template_output(ctx, ranked)
