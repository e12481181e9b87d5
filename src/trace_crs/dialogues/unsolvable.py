"""The unsolvable set (TravelBench's "Unsolvable" subset, adapted to Trace): requests no system
can satisfy from the KB, each labelled with why, for abstention metrics.

Built deterministically from the KB and the corpus (``seed``), stratified over four reasons:

* ``over_constrained`` — a corpus dialogue's stated preferences plus one more facet value such
  that **no POI of the whole city × type slice** satisfies them all (checked by brute force);
* ``contradictory`` — two values of a single-valued facet at once ("quiet" and "loud");
* ``uncovered`` — a city the KB does not cover (its slice is empty; the item keeps the source
  dialogue's pools, so a system is offered only POIs of another city);
* ``live_data`` — a request only live data or a booking system can answer (open right now,
  a table at a given time, tonight's room price); the KB holds no opening hours, availability
  or dated prices, so no POI can be shown to satisfy it.

Each item is a dialogue-schema record: the user's request (phrased by the simulator, with the
simulator's own phrasing) and a reference system turn with the ``abstain`` action and no gold;
``unsolvable = {"reason", "constraints"}`` says why.  ``satisfiable(kb, item)`` is the brute-force
check the tests run over the KB.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from trace_crs.dialogues.constraints import Constraint, satisfies
from trace_crs.dialogues.phrasing import pref_text
from trace_crs.kb.facets import NOISE_LEVELS
from trace_crs.kb.store import KB

REASONS: tuple[str, ...] = ("over_constrained", "contradictory", "uncovered", "live_data")
UNCOVERED_CITIES: tuple[str, ...] = ("Boise", "Anchorage", "Fargo", "Spokane", "Knoxville")
LIVE_DATA = ("Which of them is open right now?", "Can you book us a table for 8 pm tonight?",
             "What would a room cost for next Saturday night?", "Is there availability this evening for six people?")
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
    if info["reason"] == "live_data":
        return []
    constraints = [tuple(c) for c in info["constraints"]]
    pois = slice_pois(kb, item["scenario"]["city"], item["scenario"]["poi_type"])
    return [p.business_id for p in pois if all(satisfies(p, c) for c in constraints)]


def _item(base: dict[str, Any], index: int, reason: str, constraints: list[Constraint], text: str,
          city: str | None = None) -> dict[str, Any]:
    scen = {**base["scenario"], "city": city or base["scenario"]["city"]}
    return {  # the pools of the source dialogue: for an uncovered city they hold only other-city POIs
        "dialogue_id": f"crs_unsolvable_{index + 1:05d}", "scenario": scen,
        "candidate_poi_ids": list(base["candidate_poi_ids"]), "expanded_pool_poi_ids": base["expanded_pool_poi_ids"],
        "open_set_poi_ids": list(base["open_set_poi_ids"]),
        "turns": [{"turn_id": 1, "role": "user", "action": "greet_and_seek", "text": text, "referenced_poi_ids": [],
                   "referenced_review_ids": [], "citations": []},
                  {"turn_id": 2, "role": "system", "action": "abstain", "text": ABSTAIN_TEXT, "referenced_poi_ids": [],
                   "referenced_review_ids": [], "citations": []}],
        "split": base["split"], "metadata": {**base["metadata"], "generator": "simulated"},
        "unsolvable": {"reason": reason, "constraints": [list(c) for c in constraints]},
    }


def build_unsolvable(kb: KB, dialogues: list[dict[str, Any]], n: int, seed: int = 42) -> list[dict[str, Any]]:
    """``n`` unsolvable items, as equal a share per reason as ``n`` allows, each verified."""
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
            if reason == "over_constrained":
                pois = slice_pois(kb, base["scenario"]["city"], poi_type)
                fits = [c for c in (extras[k] for k in rng.permutation(len(extras)))
                        if c not in stated and (c[0] != "style" or c[1] in {p.attributes.get("style") for p in pois})
                        and not any(all(satisfies(p, x) for x in [*stated, c]) for p in pois)]
                if not stated or not fits:
                    continue
                constraints = [*stated, fits[0]]
            elif reason == "contradictory":
                noise = [v for v in NOISE_LEVELS if v != "average"]
                constraints = [("noise", noise[0]), ("noise", noise[1])]
            else:
                constraints = stated
            text = " ".join(pref_text(c, poi_type, rng) for c in constraints)
            city = str(UNCOVERED_CITIES[int(rng.integers(len(UNCOVERED_CITIES)))]) if reason == "uncovered" else None
            if reason == "live_data":
                text = (text + " " + LIVE_DATA[int(rng.integers(len(LIVE_DATA)))]).strip()
            item = _item(base, len(items), reason, constraints, f"Hi! I'm in {city or base['scenario']['city']}. {text}",
                         city)
            if satisfiable(kb, item):  # never ship an item a POI could satisfy
                continue
            items.append(item)
            made += 1
    return items
