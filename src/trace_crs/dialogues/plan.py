"""The scripted dialogue plan of the simulated generator (paper §2.2; Appendix G rules).

A plan is a list of user → system :class:`Step` pairs::

    greet_and_seek → ask_preference, [provide_preference → ask_preference],
    provide_preference → recommend P0,
    reject_and_refine (c1, violated by P0) → recommend P1 | compare, ...   (R rejections)
    [provide_preference → compare], accept → farewell

The user's hidden preferences are constraints a target candidate T satisfies, so the set
``S`` of candidates satisfying everything stated so far is never empty.  Every recommended
POI lies in ``S`` (gold), every other member of ``S`` is an acceptable alternative (exact by
construction), and each rejection states a constraint the rejected POI violates.

Travellers' language both ways: with probability ``P_AVOID`` one value the target does *not*
have but another candidate does joins the constraint order near its front as
``("avoid", (facet, value))`` (:func:`~trace_crs.dialogues.constraints.avoid_pool`; stated as
a negated sentence, possibly as the reason for a rejection: "too loud — nothing loud"); with
probability ``P_EITHER`` a style/ambience/feature constraint becomes an either-of group with a
value another candidate has.  Gold honours both, since every set above uses
:func:`~trace_crs.dialogues.constraints.meets`.

Persona conditioning: the persona's ``preference_prior`` (``data/personas.yaml``) makes a
target that meets more favoured facet values more likely (weight ``1 + FAVOUR_TARGET·k``) and
moves the favoured constraints to the front of the order in which preferences are stated,
so they are the ones most often revealed (and hence in the hidden preferences).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from trace_crs.dialogues.constraints import Constraint, avoid_pool, loosened, meeting, meets, preference_pool, satisfies
from trace_crs.dialogues.tiers import TierSpec
from trace_crs.kb.schema import POI

MAX_TURNS = 12
P_STYLE_FIRST = 0.4  # the greeting states the style (when the target has one)
P_SILENT_GREETING = 0.15
SLACK_EVERY = 8  # attempts before one fewer up-front constraint is tried
FAVOUR_TARGET = 10.0  # extra target weight per favoured facet value it meets
FAVOUR_ORDER = 10.0  # added to a favoured constraint's coverage score (> any coverage of 8 + noise 2)
P_AVOID = 0.25  # a preference against a value joins the order (when the pool has one)
AVOID_DEPTH = 2  # ... at one of the first AVOID_DEPTH + 1 positions
P_EITHER = 0.08  # a style/ambience/feature constraint becomes "either it or another value"
Favoured = frozenset  # of (facet, value-as-text | "*")


def favoured(constraint: Constraint, prior: Favoured) -> bool:
    """Whether the persona prior favours ``constraint``."""
    facet, value = constraint
    return (facet, "*") in prior or (facet, str(value)) in prior


@dataclass
class Step:
    """One user turn and the system turn answering it."""

    user_action: str
    system_action: str
    revealed: list[Constraint] = field(default_factory=list)
    rejected: str | None = None
    recommended: list[str] = field(default_factory=list)
    alternatives: list[str] = field(default_factory=list)
    stated: list[Constraint] = field(default_factory=list)  # all constraints stated up to this step


@dataclass
class Plan:
    steps: list[Step]
    constraints: list[Constraint]
    target: str


def _pick(ids: list[str], rng: np.random.Generator, avoid: set[str], k: int = 1) -> list[str] | None:
    pool = [b for b in ids if b not in avoid]
    if len(pool) < k:
        return None
    return [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]


def _order(
    pool: list[Constraint], cands: list[POI], rng: np.random.Generator, prior: Favoured = frozenset()
) -> list[Constraint]:
    """Constraints the persona favours first, then broad ones (met by many candidates), ties
    and near-ties shuffled; the style leads with probability ``P_STYLE_FIRST``."""
    cover = {
        i: sum(meets(p, c) for p in cands) + rng.random() * 2 + FAVOUR_ORDER * favoured(c, prior)
        for i, c in enumerate(pool)
    }
    ordered = [pool[i] for i in sorted(cover, key=lambda i: -cover[i])]
    if rng.random() < P_STYLE_FIRST:
        ordered.sort(key=lambda c: c[0] != "style")
    return ordered


def _vary(
    pool: list[Constraint], target: POI, cands: list[POI], rng: np.random.Generator, prior: Favoured = frozenset()
) -> None:
    """In place: maybe insert an avoided value near the front (after the persona's favoured
    constraints, so the persona signal is kept), maybe turn one constraint into an either-of
    group (module docstring)."""
    avoids = [a for a in avoid_pool(target, cands) if not favoured(a[1], prior)]  # never against the persona's tastes
    if avoids and rng.random() < P_AVOID:
        lead = next((i for i, c in enumerate(pool) if not favoured(c, prior)), len(pool))
        at = min(len(pool), lead + int(rng.integers(0, AVOID_DEPTH + 1)))
        pool.insert(at, avoids[int(rng.integers(len(avoids)))])
    if rng.random() < P_EITHER:
        for i, (facet, value) in enumerate(pool):
            if (
                facet not in ("style", "ambience", "features")
                or (facet == "style" and target.poi_type != "restaurant")
                or favoured((facet, value), prior)
            ):  # the persona's own tastes stay plain
                continue
            have = (
                {p.attributes.get(facet) for p in cands}
                if facet == "style"
                else {v for p in cands for v in p.attributes.get(facet) or []}
            )
            others = sorted(v for v in have - {value, None} if v is not None and not satisfies(target, (facet, v)))
            if others:
                pool[i] = ("either", ((facet, value), (facet, others[int(rng.integers(len(others)))])))
                return


def _attempt(cands: list[POI], spec: TierSpec, *, rng: np.random.Generator, **how: Any) -> Plan | None:
    """One random try (``how``: ``hotspots``, ``prior`` and ``slack`` of :func:`build_plan`);
    ``slack`` states that many fewer constraints before the first recommendation (never fewer
    than one), which makes rejections feasible in sparse pools."""
    hotspots: list[dict[str, Any]] = how["hotspots"]
    prior: Favoured = how.get("prior", frozenset())
    slack: int = how.get("slack", 0)
    by_id = {p.business_id: p for p in cands}
    peers = np.array([sum(q.attributes.get("style") == p.attributes.get("style") for q in cands) for p in cands], float)
    liked = np.array([sum(favoured(c, prior) for c in preference_pool(p, hotspots)) for p in cands], float)
    weight = peers**2 * (1.0 + FAVOUR_TARGET * liked)  # favour the focus style and the persona's tastes
    target = cands[int(rng.choice(len(cands), p=weight / weight.sum()))]
    pool = _order(preference_pool(target, hotspots), cands, rng, prior)
    _vary(pool, target, cands, rng, prior)
    n_rej = int(rng.choice(spec.rejections))
    n_con = min(int(rng.integers(spec.constraints[0], spec.constraints[1] + 1)), len(pool))
    tight = next((c for c in pool if loosened(c) is not None), None) if spec.conflicts else None
    rest = [c for c in pool if c is not tight]
    n_pre = max(1, n_con - n_rej - slack)
    if tight is not None and n_pre < 2:
        tight, rest = None, pool
    pre = rest[: n_pre - (tight is not None)] + ([cast(Constraint, loosened(tight))] if tight is not None else [])
    later = rest[n_pre - (tight is not None) :]  # rejection constraints are chosen among these
    compare_first = rng.random() < 0.5
    sep = rng.random() < spec.p_separate_compare and 2 * (4 + n_rej) <= MAX_TURNS
    extra = rng.random() < spec.p_extra_ask
    if compare_first:
        extra, sep = (extra or sep) and 2 * (4 + n_rej) <= MAX_TURNS, False
    extra = extra and 2 * (4 + n_rej + sep) <= MAX_TURNS
    greet_n = 0 if rng.random() < P_SILENT_GREETING or len(pre) < 2 else 1
    steps = [Step("greet_and_seek", "ask_preference", pre[:greet_n])]
    if extra:  # a second ask round; the user may have nothing new to add
        more = pre[greet_n : greet_n + 1] if len(pre) - greet_n >= 2 else []
        steps.append(Step("provide_preference", "ask_preference", more))
        greet_n += len(more)
    current = Step("provide_preference", "compare" if compare_first else "recommend", pre[greet_n:])
    if not current.revealed:
        return None
    steps.append(current)
    stated, s_ids, recommended = list(pre), meeting(cands, pre), []
    for j in range(n_rej):
        k = 2 if current.system_action == "compare" else 1
        options = [later[i] for i in rng.permutation(len(later)) if later[i] not in stated]
        if tight is not None and tight not in stated:
            options.insert(0, tight)
        choice = None
        for c in options:
            violators = [b for b in s_ids if b not in recommended and not meets(by_id[b], c)]
            if len(violators) >= k:
                choice = (c, [violators[i] for i in rng.choice(len(violators), size=k, replace=False)])
                break
        if choice is None:
            return None
        c, victims = choice
        current.recommended = victims
        recommended += victims
        stated.append(c)
        s_ids = [b for b in s_ids if meets(by_id[b], c)]
        final_compare = j == n_rej - 1 and not sep and not compare_first
        current = Step("reject_and_refine", "compare" if final_compare else "recommend", [c], rejected=victims[0])
        steps.append(current)
    if sep:
        pick = _pick(s_ids, rng, set(recommended) | {target.business_id}) or _pick(s_ids, rng, set(recommended))
        if pick is None:
            return None
        current.recommended = pick
        recommended += pick
        current = Step("provide_preference", "compare")
        steps.append(current)
    k = 2 if current.system_action == "compare" else 1
    rest_ids = [b for b in s_ids if b not in recommended and b != target.business_id]
    pair = (
        ([target.business_id] + (_pick(rest_ids, rng, set(), k - 1) or []))
        if target.business_id not in recommended
        else (_pick(s_ids, rng, set(recommended), k) or [])
    )
    if len(pair) < k:
        return None
    pair = [pair[i] for i in rng.permutation(k)]
    current.recommended = pair
    recommended += pair
    if len(set(recommended)) < 3:
        return None
    steps.append(Step("accept", "farewell"))
    stated_now: list[Constraint] = []
    for step in steps:
        stated_now += step.revealed
        step.stated = list(stated_now)
        if step.recommended:
            ok = meeting(cands, stated_now)
            step.alternatives = [b for b in ok if b not in step.recommended]
    return Plan(steps=steps, constraints=stated, target=target.business_id)


def build_plan(
    cands: list[POI],
    spec: TierSpec,
    hotspots: list[dict[str, Any]],
    rng: np.random.Generator,
    attempts: int = 40,
    prior: Favoured = frozenset(),
) -> Plan | None:
    """A feasible plan for these candidates, or ``None`` after ``attempts`` random tries."""
    for i in range(attempts):
        plan = _attempt(cands, spec, rng=rng, hotspots=hotspots, prior=prior, slack=i // SLACK_EVERY)
        if plan is not None:
            return plan
    return None
