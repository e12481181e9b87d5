"""The unsolvable set (TravelBench's "Unsolvable" subset, adapted to Trace): requests no system
can satisfy from the KB, each labelled with why, for abstention metrics.

Built deterministically from the KB and the corpus (``seed``), stratified over five reasons:

* ``over_constrained`` — a corpus dialogue's stated preferences plus one more facet value such
  that **no POI of the whole city × type slice** satisfies them all (checked by brute force);
* ``contradictory`` — two values of a single-valued facet at once, varied over both facets that
  have mutually exclusive values and every pair of their values: two noise levels ("quiet" and
  "loud") or two styles of the slice's POI type (two cuisines, two hotel styles).  Price and the
  list facets have no contradictory pair in the constraint language (a price ceiling never
  excludes another; a POI may be both romantic and casual), so they are not drawn;
* ``uncovered`` — what the request asks for is outside the KB: alternately a city the KB does not
  cover (its slice is empty) or a POI type it does not hold (:data:`UNCOVERED_TYPES`: ``asked_type``;
  the constraint ``("poi_type", asked)`` no POI meets).  The item keeps the source dialogue's
  pools, so a system is offered only POIs it was not asked for;
* ``unclear_intent`` — TravelBench's "no clear intent / key context missing": the request leaves
  out, in turn, the city, the kind of place (restaurant, hotel, attraction) or everything (no
  city, no kind, no preference: "Can you recommend something?"); ``missing`` names what is
  absent.  No POI can be shown to meet a request whose city or kind is unknown: a system should
  ask or decline, not guess;
* ``live_data`` — a request only live data or a booking system can answer (open right now,
  a table at a given time, tonight's room price); the KB holds no opening hours, availability
  or dated prices, so no POI can be shown to satisfy it.

Each item is a dialogue-schema record: the user's request (phrased by the simulator, with the
simulator's own phrasing) and a reference system turn with the ``abstain`` action and no gold;
``unsolvable = {"reason", "constraints"}`` says why.  ``satisfiable(kb, item)`` is the brute-force
check the tests run over the KB; each item records the KB it was verified against
(``metadata.kb_sha256``) and :func:`check_kb` refuses the set with another KB.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.constraints import Constraint, satisfies
from trace_crs.dialogues.phrasing import choose, pref_text, templates
from trace_crs.errors import DataError, UsageError
from trace_crs.kb.facets import NOISE_LEVELS
from trace_crs.kb.store import KB

REASONS: tuple[str, ...] = ("over_constrained", "contradictory", "uncovered", "live_data", "unclear_intent")
UNCOVERED_CITIES: tuple[str, ...] = ("Boise", "Anchorage", "Fargo", "Spokane", "Knoxville")
UNCOVERED_TYPES: tuple[str, ...] = ("campground", "car rental", "ski resort", "coworking space", "hospital")
# What an unclear request leaves out, in rotation; the texts state only what is kept.
UNCLEAR: dict[str, tuple[str, ...]] = {
    "city": ("Hi! I'm looking for a {noun}. {pref}", "Hello, can you suggest a {noun}? {pref}"),
    "poi_type": ("Hi! I'm in {city}. {pref} Any ideas?", "Hello, I'm visiting {city}. What would you suggest? {pref}"),
    "everything": ("Hi! Can you recommend something?", "Hello, any suggestions for me?"),
}
CONTRADICTABLE: tuple[str, ...] = ("noise", "style")
LIVE_DATA = (
    "Which of them is open right now?",
    "Can you book us a table for 8 pm tonight?",
    "What would a room cost for next Saturday night?",
    "Is there availability this evening for six people?",
)
# TravelBench's decline marker, as any system may write it (case and inner spaces vary).
UNSOLVED_RE = re.compile(r"\[\s*unsolved\s*\]", re.IGNORECASE)
ABSTAIN_TEXT = "[Unsolved] I cannot find a place that meets this request with the information I have."


def _first_request(d: dict[str, Any]) -> list[Constraint]:
    """The constraints the dialogue's hidden preferences state (anchor kept out: needs a radius)."""
    h = d["scenario"]["hidden_preferences"]
    out: list[Constraint] = [(f, h[f]) for f in ("style", "price_max", "noise") if h.get(f) is not None]
    return out + [("ambience", a) for a in h.get("ambience") or []] + [("features", x) for x in h.get("features") or []]


def _extra_facets(kb: KB) -> list[Constraint]:
    """Every single facet value that occurs in the KB (the search space of an extra constraint)."""
    seen: set[tuple[str, str]] = set()
    for p in kb.pois.values():
        a = p.attributes
        seen |= {(f, a[f]) for f in ("style", "noise") if a.get(f)}
        seen |= {("ambience", v) for v in a.get("ambience") or []} | {("features", v) for v in a.get("features") or []}
    return sorted(seen)


def slice_pois(kb: KB, city: str, poi_type: str) -> list:
    return [kb.pois[b] for b in kb.pois_in(city, poi_type)]


def satisfiable(kb: KB, item: dict[str, Any]) -> list[str]:
    """Brute force: the POIs of the item's city × type slice that satisfy all its constraints
    (live-data requests: none, the KB has no field that could answer them)."""
    info = item["unsolvable"]
    if info["reason"] in ("live_data", "unclear_intent"):
        return []
    constraints = [tuple(c) for c in info["constraints"]]
    if any(f == "poi_type" for f, _ in constraints):  # an uncovered kind: no POI of the KB has it
        asked = {v for f, v in constraints if f == "poi_type"}
        return [b for b, p in kb.pois.items() if p.poi_type in asked]
    pois = slice_pois(kb, item["scenario"]["city"], item["scenario"]["poi_type"])
    return [p.business_id for p in pois if all(satisfies(p, c) for c in constraints)]


def _item(
    base: dict[str, Any],
    index: int,
    reason: str,
    constraints: list[Constraint],
    text: str,
    city: str | None = None,
    **detail: Any,
) -> dict[str, Any]:
    scen = {**base["scenario"], "city": city or base["scenario"]["city"]}
    return {  # the pools of the source dialogue: for an uncovered city they hold only other-city POIs
        "dialogue_id": f"crs_unsolvable_{index + 1:05d}",
        "scenario": scen,
        "candidate_poi_ids": list(base["candidate_poi_ids"]),
        "expanded_pool_poi_ids": base["expanded_pool_poi_ids"],
        "open_set_poi_ids": list(base["open_set_poi_ids"]),
        "turns": [
            {
                "turn_id": 1,
                "role": "user",
                "action": "greet_and_seek",
                "text": text,
                "referenced_poi_ids": [],
                "referenced_review_ids": [],
                "citations": [],
            },
            {
                "turn_id": 2,
                "role": "system",
                "action": "abstain",
                "text": ABSTAIN_TEXT,
                "referenced_poi_ids": [],
                "referenced_review_ids": [],
                "citations": [],
            },
        ],
        "split": base["split"],
        "metadata": {**base["metadata"], "generator": "simulated"},
        "unsolvable": {"reason": reason, "constraints": [list(c) for c in constraints], **detail},
    }


def _contradiction(kb: KB, base: dict[str, Any], k: int, rng: np.random.Generator) -> list[Constraint]:
    """The ``k``-th contradictory pair: facets in rotation (:data:`CONTRADICTABLE`), a seeded pair
    of two distinct values of that facet (styles: those of the slice's POI type in the KB)."""
    facet = CONTRADICTABLE[k % len(CONTRADICTABLE)]
    if facet == "noise":
        values = list(NOISE_LEVELS)
    else:
        poi_type = base["scenario"]["poi_type"]
        values = sorted(
            {
                str(p.attributes["style"])
                for p in kb.pois.values()
                if p.poi_type == poi_type and p.attributes.get("style")
            }
        )
        if len(values) < 2:
            values = list(NOISE_LEVELS)
            facet = "noise"
    i, j = rng.choice(len(values), size=2, replace=False)
    return [(facet, values[int(i)]), (facet, values[int(j)])]


def _unclear(base: dict[str, Any], k: int, stated: list[Constraint], rng: np.random.Generator) -> tuple[str, str]:
    """``(what is missing, request text)`` of the ``k``-th unclear request (:data:`UNCLEAR`)."""
    missing = list(UNCLEAR)[k % len(UNCLEAR)]
    scen = base["scenario"]
    hints = [c for c in stated if missing != "poi_type" or c[0] != "style"]  # a style names the kind
    pref = " ".join(pref_text(c, scen["poi_type"], rng) for c in hints[:1])
    noun = choose(templates()["nouns"][scen["poi_type"]], rng)
    frame = UNCLEAR[missing][int(rng.integers(len(UNCLEAR[missing])))]
    return missing, " ".join(frame.format(noun=noun, city=scen["city"], pref=pref).split())


def build_unsolvable(kb: KB, dialogues: list[dict[str, Any]], n: int, seed: int = DEFAULT_SEED) -> list[dict[str, Any]]:
    """``n`` unsolvable items, as equal a share per reason as ``n`` allows, each verified.  Each
    reason draws at most one item per corpus dialogue, so ``n`` above ``len(REASONS)`` times the
    corpus size is a UsageError; a reason the KB cannot fill (no over-constraining facet left)
    yields fewer, which the caller sees in ``len(result)`` (the CLI warns with both numbers)."""
    if n > len(REASONS) * len(dialogues):
        raise UsageError(
            f"--n {n}: a corpus of {len(dialogues)} dialogues gives at most {len(REASONS) * len(dialogues)} "
            f"unsolvable items (one per dialogue and reason, {len(REASONS)} reasons)"
        )
    rng = np.random.default_rng([seed, 19])
    extras = _extra_facets(kb)
    order = rng.permutation(len(dialogues))
    items: list[dict[str, Any]] = []
    counts = {r: n // len(REASONS) + (i < n % len(REASONS)) for i, r in enumerate(REASONS)}
    for reason in REASONS:
        made = 0
        for j in order:
            if made == counts[reason]:
                break
            base = dialogues[int(j)]
            poi_type = base["scenario"]["poi_type"]
            stated = _first_request(base)
            detail: dict[str, Any] = {}
            city = None
            if reason == "unclear_intent":
                missing, request = _unclear(base, made, stated, rng)
                item = _item(base, len(items), reason, [], request, missing=missing)
                items.append(item)
                made += 1
                continue
            if reason == "over_constrained":
                pois = slice_pois(kb, base["scenario"]["city"], poi_type)
                fits = [
                    c
                    for c in (extras[k] for k in rng.permutation(len(extras)))
                    if c not in stated
                    and (c[0] != "style" or c[1] in {p.attributes.get("style") for p in pois})
                    and not any(all(satisfies(p, x) for x in [*stated, c]) for p in pois)
                ]
                if not stated or not fits:
                    continue
                constraints = [*stated, fits[0]]
            elif reason == "contradictory":
                constraints = _contradiction(kb, base, made, rng)
            else:
                constraints = stated
            text = " ".join(pref_text(c, poi_type, rng) for c in constraints)
            opening = f"Hi! I'm in {base['scenario']['city']}."
            if reason == "uncovered" and made % 2 == 0:
                city = str(UNCOVERED_CITIES[int(rng.integers(len(UNCOVERED_CITIES)))])
                opening = f"Hi! I'm in {city}."
            elif reason == "uncovered":  # another kind of place: its style words would not fit
                asked = str(UNCOVERED_TYPES[int(rng.integers(len(UNCOVERED_TYPES)))])
                constraints = [c for c in constraints if c[0] != "style"]
                text = " ".join(pref_text(c, poi_type, rng) for c in constraints)
                constraints, detail = [("poi_type", asked), *constraints], {"asked_type": asked}
                opening = f"Hi! I'm in {base['scenario']['city']} and I'm looking for a {asked}."
            if reason == "live_data":
                text = (text + " " + LIVE_DATA[int(rng.integers(len(LIVE_DATA)))]).strip()
            item = _item(base, len(items), reason, constraints, f"{opening} {text}".strip(), city, **detail)
            if satisfiable(kb, item):  # never ship an item a POI could satisfy
                continue
            items.append(item)
            made += 1
    for item in items:  # the KB every item was verified against (check_kb refuses another one)
        item["metadata"]["kb_sha256"] = kb.sha256 or item["metadata"].get("kb_sha256", "")
    return items


def check_kb(items: list[dict[str, Any]], kb: KB, source: str) -> None:
    """DataError (exit 3) when an unsolvable item was verified against another KB than ``kb``
    (its ``metadata.kb_sha256``, the SHA-256 of that KB's ``pois.jsonl``): in this KB a POI may
    satisfy it.  Items or KBs without a hash are not compared."""
    for line, item in enumerate(items, start=1):
        built = (item.get("metadata") or {}).get("kb_sha256")
        if kb.sha256 and built and built != kb.sha256:
            raise DataError(
                f"item {item.get('dialogue_id')} was verified unsolvable against the KB with pois.jsonl SHA-256 "
                f"{built}, but --kb has {kb.sha256}; rebuild the set with `dialogues unsolvable --kb` of this KB",
                file=source,
                line=line,
                field="metadata.kb_sha256",
            )
