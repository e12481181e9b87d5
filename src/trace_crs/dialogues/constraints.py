"""User preference constraints the generator states (paper §2.2, Appendix S).

A constraint is ``(facet, value)``; whether a POI meets one is decided by the one
satisfaction function of the KB layer, :func:`trace_crs.kb.satisfaction.satisfies`
(re-exported here with :func:`satisfying` for existing callers).  The multi-reference gold of
a turn is every candidate satisfying all constraints stated so far.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from trace_crs.kb.satisfaction import Constraint, satisfies, satisfying
from trace_crs.kb.schema import POI

__all__ = ["ANCHOR_RADII_KM", "Constraint", "hidden_preferences", "loosened", "nearest_anchor",
           "preference_pool", "satisfies", "satisfying"]

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


def hidden_preferences(constraints: list[Constraint]) -> dict[str, Any]:
    """The ``scenario.hidden_preferences`` record of a final constraint list (later values of
    single-valued facets replace earlier ones; list facets are sorted)."""
    prefs: dict[str, Any] = {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None}
    for facet, value in constraints:
        if facet in ("ambience", "features"):
            prefs[facet] = sorted(set(prefs[facet]) | {value})
        else:
            prefs[facet] = value
    return prefs
