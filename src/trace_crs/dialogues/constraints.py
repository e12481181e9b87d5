"""User preference constraints the generator states (paper §2.2, Appendix S).

A constraint is ``(facet, value)``; whether a POI meets one is decided by the one
satisfaction function of the KB layer, :func:`trace_crs.kb.satisfaction.satisfies`.  Two
composite constraints state what travellers also say (issue "travellers' language"):

* ``("avoid", (facet, value))`` — the traveller does *not* want the value ("nothing loud",
  "not touristy"): met by a POI that does not have it (an unknown style or noise level is not
  having it, as :func:`~trace_crs.kb.satisfaction.satisfies` never lets an unknown value pass);
* ``("either", ((facet, value), ...))`` — any one of several values will do.

:func:`meets` and :func:`meeting` accept both and defer every per-value test to the KB
function (re-exported here unchanged, with :func:`satisfying`, for plain constraints).  The multi-reference gold of a turn is every candidate satisfying all
constraints stated so far, so gold and acceptable alternatives honour avoided values.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from trace_crs.kb.satisfaction import Constraint, satisfies, satisfying
from trace_crs.kb.schema import POI

__all__ = [
    "ANCHOR_RADII_KM",
    "AVOIDABLE",
    "Constraint",
    "avoid_pool",
    "constraints_of",
    "hidden_preferences",
    "loosened",
    "meeting",
    "meets",
    "nearest_anchor",
    "preference_pool",
    "satisfies",
    "satisfying",
]

# Values a traveller plausibly says they do *not* want (the simulator's bank phrases each);
# styles only for restaurants ("not Italian again").
AVOIDABLE: dict[str, tuple[str, ...]] = {
    "noise": ("loud", "quiet"),
    "ambience": ("touristy", "trendy", "lively", "classy", "romantic"),
    "features": ("family_friendly", "pet_friendly"),
}


def meets(poi: POI, constraint: Constraint) -> bool:
    """Whether ``poi`` meets one constraint, plain or composite (module docstring); every
    per-value test is :func:`~trace_crs.kb.satisfaction.satisfies`."""
    facet, value = constraint
    if facet == "avoid":
        return not satisfies(poi, tuple(value))
    if facet == "either":
        return any(satisfies(poi, tuple(c)) for c in value)
    return satisfies(poi, constraint)


def meeting(pois: list[POI], constraints: list[Constraint]) -> list[str]:
    """Ids (in input order) of the POIs meeting every constraint, plain or composite."""
    return [p.business_id for p in pois if all(meets(p, c) for c in constraints)]


def avoid_pool(target: POI, cands: list[POI]) -> list[Constraint]:
    """``("avoid", (facet, value))`` constraints ``target`` meets that some other candidate
    violates (so stating one can matter): avoidable values of :data:`AVOIDABLE` the target does
    not have, and for restaurants another candidate's style."""
    out: list[Constraint] = []
    for facet, values in AVOIDABLE.items():
        for value in values:
            c = (facet, value)
            if not satisfies(target, c) and any(satisfies(p, c) for p in cands):
                out.append(("avoid", c))
    if target.poi_type == "restaurant":
        styles = sorted(
            cast("set[str]", {p.attributes.get("style") for p in cands} - {target.attributes.get("style"), None})
        )
        out += [("avoid", ("style", s)) for s in styles]
    return out


ANCHOR_RADII_KM: tuple[float, ...] = (2.0, 4.0)


def nearest_anchor(poi: POI, hotspots: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The nearest named hot spot as an anchor with the smallest radius of
    ``ANCHOR_RADII_KM`` that contains ``poi``; ``None`` when none does."""
    if not hotspots:
        return None
    from trace_crs.kb.geo import haversine_km

    lat = np.array([h["lat"] for h in hotspots])
    lon = np.array([h["lon"] for h in hotspots])
    dist = np.atleast_1d(haversine_km(poi.latitude, poi.longitude, lat, lon))
    best = int(np.argmin(dist))
    for radius in ANCHOR_RADII_KM:
        if dist[best] <= radius:
            h = hotspots[best]
            return {"name": h["name"], "latitude": float(h["lat"]), "longitude": float(h["lon"]), "max_km": radius}
    return None


def preference_pool(poi: POI, hotspots: list[dict[str, Any]]) -> list[Constraint]:
    """Every constraint ``poi`` satisfies that a user could state: its style, a price
    ceiling ``max(price, 2)`` (price ≤ 3), its noise level, each ambience and feature, and
    the nearest anchor."""
    attrs = poi.attributes
    pool: list[Constraint] = []
    if attrs.get("style"):
        pool.append(("style", attrs["style"]))
    if poi.price is not None and poi.price <= 3:
        pool.append(("price_max", max(poi.price, 2)))
    if attrs.get("noise"):
        pool.append(("noise", attrs["noise"]))
    pool += [("ambience", a) for a in attrs.get("ambience") or []]
    pool += [("features", f) for f in attrs.get("features") or []]
    anchor = nearest_anchor(poi, hotspots)
    if anchor is not None:
        pool.append(("anchor", anchor))
    return pool


def loosened(constraint: Constraint) -> Constraint | None:
    """A looser version of a constraint that a user might state first and tighten later
    (a "conflict"): a price ceiling one step higher or an anchor radius doubled."""
    facet, value = constraint
    if facet == "price_max" and value < 3:
        return ("price_max", value + 1)
    if facet == "anchor":
        return ("anchor", {**value, "max_km": value["max_km"] * 2})
    return None


def empty_preferences() -> dict[str, Any]:
    """A new ``hidden_preferences`` record with no constraint stated (ARCHITECTURE §2): the
    single-valued facets ``None``, the list facets empty."""
    return {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None}


def hidden_preferences(constraints: list[Constraint]) -> dict[str, Any]:
    """The ``scenario.hidden_preferences`` record of a final constraint list (later values of
    single-valued facets replace earlier ones; list facets are sorted; avoided values as
    ``avoid: {facet: [values]}``, either-of groups as ``either: [[{facet, value}, ...]]``)."""
    prefs: dict[str, Any] = {**empty_preferences(), "avoid": {}, "either": []}
    for facet, value in constraints:
        if facet == "avoid":
            prefs["avoid"][value[0]] = sorted(set(prefs["avoid"].get(value[0], [])) | {value[1]})
        elif facet == "either":
            prefs["either"].append([{"facet": f, "value": v} for f, v in value])
        elif facet in ("ambience", "features"):
            prefs[facet] = sorted(set(prefs[facet]) | {value})
        else:
            prefs[facet] = value
    prefs["avoid"] = dict(sorted(prefs["avoid"].items()))
    return prefs


def constraints_of(hidden: dict[str, Any]) -> list[Constraint]:
    """The constraints of a ``hidden_preferences`` record (the inverse of
    :func:`hidden_preferences` up to order): single-valued facets, list facets, the anchor,
    then avoided values and either-of groups (both optional: older corpora lack them)."""
    out: list[Constraint] = [(f, hidden[f]) for f in ("style", "price_max", "noise") if hidden.get(f) is not None]
    out += [(f, v) for f in ("ambience", "features") for v in hidden.get(f) or []]
    out += [("anchor", hidden["anchor"])] if hidden.get("anchor") else []
    out += [("avoid", (f, v)) for f, values in (hidden.get("avoid") or {}).items() for v in values]
    return out + [("either", tuple((m["facet"], m["value"]) for m in group)) for group in hidden.get("either") or []]
