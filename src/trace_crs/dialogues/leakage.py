"""Is the benchmark solvable by reading the generator back?  Two audits for the data card.

1. **Rule decoder** over the baselines' public word list (``kb/data/facet_lexicon.yaml`` and
   the price vocabulary ``kb.price``): stated keywords → constraints (style/noise: last one;
   ambience/features: all; price: last ceiling; a named landmark of the city → an anchor with
   the stated radius, or 2 km).  For every system recommend/compare turn it decodes the user
   turns so far and compares ``satisfying(candidates, decoded)`` with the turn's exact
   acceptable set (gold ∪ acceptable alternatives).  ``simple`` decodes the raw user text;
   ``strong`` first deletes the persona description, the trip context, the city and every POI
   name (words that name, not prefer) and, when no radius is stated, uses the largest anchor
   radius the generator uses.  Also reported: the share of hidden-preference items the
   decoder recovers from the whole conversation, and the price-ceiling extraction recall of
   the public price vocabulary (the ceiling Price Alignment reads from the user turns equals
   the hidden ``price_max``), over the dialogues that state a price (paper §3: 96 %).
2. **Persona → preference mutual information** per facet, conditional on the POI type
   (persona pools and facet vocabularies both depend on it, so an unconditional estimate
   would credit personas with the type's signal): ``I(persona; value | type) = Σ_t p(t)
   I_t`` in bits, each ``I_t`` the ``sklearn`` plug-in estimate.  A single-valued facet is
   one category (its value, or none); a list facet (ambience, features) is the sum over its
   values of the information in "value is wanted" (a set of values as one category would be
   too sparse to estimate).  Beside it, the mean of the same estimate over ``n_control``
   shufflings of persona types within each POI type (seeded): the estimator's finite-sample
   bias, which ``excess_bits`` removes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sklearn.metrics import mutual_info_score

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.constraints import ANCHOR_RADII_KM, Constraint, hidden_preferences, satisfying
from trace_crs.dialogues.schema import REC_ACTIONS, Dialogue
from trace_crs.kb.geo import city_table
from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.price import price_ceiling
from trace_crs.kb.satisfaction import FACETS as CONSTRAINT_FACETS
from trace_crs.kb.store import KB

FACETS: tuple[str, ...] = CONSTRAINT_FACETS  # kb.satisfaction: every constraint facet
_KM = re.compile(r"(\d+(?:\.\d+)?)\s*km", re.IGNORECASE)


def decode(texts: list[str], city: str, default_km: float = ANCHOR_RADII_KM[0]) -> list[Constraint]:
    """Constraints a keyword reader takes from ``texts`` (see the module docstring)."""
    out: list[Constraint] = []
    for facet in ("style", "noise"):
        hits = [v for t in texts for v, _, _ in find_facets(t, facet)]
        if hits:
            out.append((facet, hits[-1]))
    for facet in ("ambience", "features"):
        out += [(facet, v) for v in sorted({v for t in texts for v, _, _ in find_facets(t, facet)})]
    ceiling = price_ceiling(texts)
    if ceiling is not None:
        out.append(("price_max", ceiling))
    joined = " ".join(texts)
    for spot in city_table().get(city, {}).get("hotspots", []):
        at = joined.lower().rfind(spot["name"].lower())
        if at >= 0:
            km = _KM.search(joined, at)
            out.append(
                (
                    "anchor",
                    {
                        "name": spot["name"],
                        "latitude": float(spot["lat"]),
                        "longitude": float(spot["lon"]),
                        "max_km": float(km.group(1)) if km else default_km,
                    },
                )
            )
            break
    return out


def _strip(text: str, words: Iterable[str]) -> str:
    for w in sorted({w for w in words if w}, key=len, reverse=True):
        text = re.sub(re.escape(w), " ", text, flags=re.IGNORECASE)
    return text


def _turn_texts(dialogue: Dialogue, upto: int, kb: KB, strong: bool) -> list[str]:
    texts = [t["text"] for t in dialogue["turns"][:upto] if t["role"] == "user"]
    if not strong:
        return texts
    scen = dialogue["scenario"]
    names = [kb.pois[b].name for b in dialogue["candidate_poi_ids"]]
    return [_strip(t, [scen.get("persona", ""), scen.get("context", ""), scen["city"], *names]) for t in texts]


def decoder_audit(dialogues: Iterable[Dialogue], kb: KB) -> dict[str, Any]:
    """Exact-acceptable-set recovery (``simple``, ``strong``) over recommend/compare turns and
    hidden-preference item recall, with their counts."""
    exact = {"simple": 0, "strong": 0}
    turns = items = found = priced = price_ok = 0
    for d in dialogues:
        stated_price = d["scenario"]["hidden_preferences"].get("price_max")
        if stated_price is not None:
            priced += 1
            price_ok += price_ceiling([t["text"] for t in d["turns"] if t["role"] == "user"]) == stated_price
        cands = [kb.pois[b] for b in d["candidate_poi_ids"]]
        city = d["scenario"]["city"]
        for i, t in enumerate(d["turns"]):
            if t["role"] != "system" or t["action"] not in REC_ACTIONS:
                continue
            turns += 1
            truth = set(t.get("gold_poi_ids", [])) | set(t.get("acceptable_alternative_poi_ids", []))
            for variant, km in (("simple", ANCHOR_RADII_KM[0]), ("strong", ANCHOR_RADII_KM[-1])):
                got = set(satisfying(cands, decode(_turn_texts(d, i, kb, variant == "strong"), city, km)))
                exact[variant] += got == truth
        want = preference_items(d["scenario"]["hidden_preferences"])
        have = preference_items(hidden_preferences(decode(_turn_texts(d, len(d["turns"]), kb, True), city)))
        items += len(want)
        found += len(want & have)
    return {
        "rec_turns": turns,
        "exact_set_simple": exact["simple"] / turns if turns else float("nan"),
        "exact_set_strong": exact["strong"] / turns if turns else float("nan"),
        "preference_items": items,
        "preference_item_recall": found / items if items else float("nan"),
        "price_dialogues": priced,
        "price_ceiling_recall": price_ok / priced if priced else float("nan"),
    }


def preference_items(hidden: dict[str, Any]) -> set[tuple[str, str]]:
    """``(facet, value)`` items of a hidden-preference record (an anchor counts by its name)."""
    out: set[tuple[str, str]] = set()
    for facet in FACETS:
        value = hidden.get(facet)
        if facet in ("ambience", "features"):
            out |= {(facet, str(v)) for v in value or []}
        elif facet == "anchor" and value:
            out.add((facet, str(value["name"])))
        elif value is not None and facet != "anchor":
            out.add((facet, str(value)))
    return out


def _category(hidden: dict[str, Any], facet: str) -> str:
    value = hidden.get(facet)
    if facet == "anchor":
        return "yes" if value else "no"
    if isinstance(value, list):
        return "|".join(sorted(value)) or "none"
    return "none" if value is None else str(value)


def _conditional_mi(personas: np.ndarray, values: np.ndarray, types: np.ndarray) -> float:
    mi = 0.0
    for t in sorted(set(types)):
        idx = types == t
        mi += idx.mean() * mutual_info_score(personas[idx], values[idx]) / np.log(2)
    return mi


def _facet_columns(dialogues: Sequence[Dialogue], facet: str) -> list[np.ndarray]:
    hidden = [d["scenario"]["hidden_preferences"] for d in dialogues]
    if facet in ("ambience", "features"):
        wanted = sorted({v for h in hidden for v in h.get(facet) or []})
        return [np.array([v in (h.get(facet) or []) for h in hidden]) for v in wanted]
    return [np.array([_category(h, facet) for h in hidden])]


def persona_information(
    dialogues: Sequence[Dialogue], seed: int = DEFAULT_SEED, n_control: int = 5
) -> dict[str, dict[str, float]]:
    """Per facet: ``mi_bits`` = I(persona type; facet | POI type), ``control_bits`` with persona
    types shuffled within each POI type, and ``excess_bits`` = the difference."""
    rng = np.random.default_rng(seed)
    types = np.array([d["scenario"]["poi_type"] for d in dialogues])
    personas = np.array([d["scenario"]["persona_type"] for d in dialogues])
    controls = []
    for _ in range(n_control):
        shuffled = personas.copy()
        for t in sorted(set(types)):
            idx = np.flatnonzero(types == t)
            shuffled[idx] = rng.permutation(personas[idx])
        controls.append(shuffled)
    out = {}
    for facet in FACETS:
        columns = _facet_columns(dialogues, facet)
        mi = sum(_conditional_mi(personas, c, types) for c in columns)
        control = float(np.mean([sum(_conditional_mi(p, c, types) for c in columns) for p in controls]))
        out[facet] = {"mi_bits": float(mi), "control_bits": control, "excess_bits": float(mi - control)}
    return out
