"""Generator B, the simulated dialogue generator (paper §2.2; the offline default).

Deterministic and LLM-free: a scripted user with hidden multi-aspect preferences and a
scripted expert system (:mod:`trace_crs.dialogues.plan`) rendered with the template banks
(:mod:`trace_crs.dialogues.phrasing`).  System recommend/compare turns quote verbatim
review spans that support the recommended POI's stated aspects (:mod:`quotes`), labelled
``[R1]``, ``[R2]``, … per turn, with character offsets.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from trace_crs.dialogues.constraints import Constraint, hidden_preferences
from trace_crs.dialogues.personas import Persona, preference_prior, sample_persona, scenario_cycle
from trace_crs.dialogues.phrasing import choose, evidence, prefs_text, render, templates
from trace_crs.dialogues.plan import Plan, Step, build_plan
from trace_crs.dialogues.pools import expanded_pools, open_set, sample_candidates
from trace_crs.dialogues.quotes import QuoteFinder, Span
from trace_crs.dialogues.tiers import TIER_SPECS
from trace_crs.kb.store import KB

QUOTES_PER_POI = {"recommend": 2, "compare": 1}
POOL_RESAMPLES = 8


def scenario_record(
    persona_type: str, persona: Persona, city: str, poi_type: str, difficulty: str, hidden: dict[str, Any]
) -> dict[str, Any]:
    """The ``scenario`` record of a dialogue (ARCHITECTURE §2), for both generators."""
    return {
        "persona_type": persona_type,
        "persona": persona.text,
        "context": persona.context,
        "city": city,
        "poi_type": poi_type,
        "difficulty": difficulty,
        "hidden_preferences": hidden,
    }


def dialogue_id(index: int) -> str:
    """``crs_yelp_00001`` for index 0 (Appendix H naming)."""
    return f"crs_yelp_{index + 1:05d}"


def _spans(finder: QuoteFinder, bid: str, stated: list[Constraint], k: int) -> list[Span]:
    """Up to ``k`` spans from distinct reviews supporting the most recently stated aspects
    first; the POI's best review's first sentence when no aspect has support."""
    out: list[Span] = []
    span: Span | None
    for facet, value in reversed(stated):
        if facet == "either":  # quote the member the POI has
            facet, value = next(((f, v) for f, v in value if finder.support(bid, f, v)), value[0])
        if facet == "avoid":  # an absent value has no supporting span
            continue
        for span in finder.support(bid, facet, value):
            if span.review_id not in {s.review_id for s in out}:
                out.append(span)
                break
        if len(out) == k:
            break
    if not out:
        span = finder.fallback(bid)
        if span is None:
            raise ValueError(f"POI {bid} has no reviews to quote")
        out.append(span)
    return out


def _system_turn(
    step: Step, kb: KB, finder: QuoteFinder, rng: np.random.Generator, slots: dict[str, str]
) -> dict[str, Any]:
    citations: list[dict[str, Any]] = []
    clauses: list[str] = []
    for bid in step.recommended:
        parts = []
        for span in _spans(finder, bid, step.stated, QUOTES_PER_POI[step.system_action]):
            label = f"R{len(citations) + 1}"
            citations.append(
                {"label": label, "review_id": span.review_id, "quote": span.quote, "start": span.start, "end": span.end}
            )
            parts.append(evidence(span.quote, label, rng))
        clauses.append(" Also, ".join(parts))
    names = [kb.pois[b].name for b in step.recommended]
    if step.system_action == "recommend":
        text = render("system", "recommend", rng, name=names[0], ev=clauses[0][0].upper() + clauses[0][1:])
    elif step.system_action == "compare":
        text = render("system", "compare", rng, name1=names[0], name2=names[1], ev1=clauses[0], ev2=clauses[1])
    else:
        text = render("system", step.system_action, rng, **slots)
    turn = {
        "role": "system",
        "action": step.system_action,
        "text": text,
        "referenced_poi_ids": list(step.recommended),
        "referenced_review_ids": list(dict.fromkeys(c["review_id"] for c in citations)),
        "citations": citations,
    }
    if step.recommended:
        turn["gold_poi_ids"] = list(step.recommended)
        turn["acceptable_alternative_poi_ids"] = list(step.alternatives)
    return turn


def _user_turn(
    step: Step, kb: KB, rng: np.random.Generator, slots: dict[str, str], poi_type: str, accepted: str
) -> dict[str, Any]:
    pref = prefs_text(step.revealed, poi_type, rng)
    refs: list[str] = []
    if step.user_action == "greet_and_seek":
        text = render("user", "greet_and_seek", rng, pref=pref, **slots)
    elif step.user_action == "reject_and_refine":
        refs = [cast(str, step.rejected)]  # a reject step names the rejected POI (plan.Step)
        text = render("user", "reject_and_refine", rng, name=kb.pois[refs[0]].name, pref=pref)
    elif step.user_action == "accept":
        refs = [accepted]
        text = render("user", "accept", rng, name=kb.pois[accepted].name)
    elif step.system_action == "compare":
        text = render("user", "ask_compare", rng, pref=pref)
    elif pref:
        text = render("user", "provide_preference", rng, pref=pref)
    else:
        text = render("user", "no_preference", rng, **slots)
    return {
        "role": "user",
        "action": step.user_action,
        "text": text,
        "referenced_poi_ids": refs,
        "referenced_review_ids": [],
        "citations": [],
    }


def _plan_for(
    kb: KB,
    city: str,
    poi_type: str,
    tier: str,
    hotspots: list[dict[str, Any]],
    rng: np.random.Generator,
    prior: frozenset = frozenset(),
) -> tuple[list[str], Plan]:
    for _ in range(POOL_RESAMPLES):
        _, cands = sample_candidates(kb, city, poi_type, rng, frozenset(v for f, v in prior if f == "style"))
        plan = build_plan([kb.pois[b] for b in cands], TIER_SPECS[tier], hotspots, rng, prior=prior)
        if plan is not None:
            return cands, plan
    raise ValueError(
        f"no feasible {tier} dialogue plan for {city} / {poi_type} after {POOL_RESAMPLES} candidate pools "
        "(POIs share too few facets)"
    )


def simulate_dialogue(
    kb: KB,
    finder: QuoteFinder,
    index: int,
    tier: str,
    seed: int,
    cities: list[str],
    hotspots: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """The ``index``-th simulated dialogue (its own generator ``default_rng([seed, 2, index])``);
    ``split`` is a placeholder until :func:`splits.assign_splits` runs."""
    rng = np.random.default_rng([seed, 2, index])
    persona_type, city, poi_type = scenario_cycle(index, cities)
    persona = sample_persona(persona_type, rng)
    cands, plan = _plan_for(kb, city, poi_type, tier, hotspots.get(city, []), rng, preference_prior(persona_type))
    open_ids = open_set(kb, city, poi_type)
    recs = [s for s in plan.steps if s.recommended]
    accepted = recs[-1].recommended[0]
    slots = {
        "city": city,
        "context": persona.context,
        "about": persona.about,
        "noun": choose(templates()["nouns"][poi_type], rng),
        "name": kb.pois[accepted].name,
    }
    turns: list[dict[str, Any]] = []
    for step in plan.steps:
        turns.append(_user_turn(step, kb, rng, slots, poi_type, accepted))
        turns.append(_system_turn(step, kb, finder, rng, slots))
    for i, turn in enumerate(turns):
        turns[i] = {"turn_id": i + 1, **turn}
    return {
        "dialogue_id": dialogue_id(index),
        "scenario": scenario_record(persona_type, persona, city, poi_type, tier, hidden_preferences(plan.constraints)),
        "candidate_poi_ids": cands,
        "expanded_pool_poi_ids": expanded_pools(open_ids, cands, rng),
        "open_set_poi_ids": open_ids,
        "turns": turns,
        "split": "train",
        "metadata": {"generator": "simulated", "model": None, "seed": seed, "kb_sha256": kb.sha256, "retries": 0},
    }
