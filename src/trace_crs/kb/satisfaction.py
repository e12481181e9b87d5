"""The one test of whether a POI meets a preference constraint, over public KB attributes
(paper §2.2 multi-reference gold, Appendix F attribute-aware baselines, Appendix S).

A constraint is ``(facet, value)``:

* ``style`` / ``noise``: the POI's attribute equals ``value``;
* ``ambience`` / ``features``: ``value`` is in the POI's list;
* ``price_max``: ``POI.price <= value`` ($ signs, 1–4);
* ``anchor``: great-circle distance to ``value``'s ``latitude``/``longitude`` ``<= max_km``.

The generator (gold and acceptable alternatives), the leakage audit, the unsolvable set and
the baselines (Knowledge-Enhanced's constraint count, DST's state filter) all call
:func:`satisfies`; baselines may combine its answers (count them, accept one of several
values) but never re-implement the per-constraint test.

An attribute the KB does not know (no price, no style, no noise level) fails by default, as
the generator labels gold; ``unknown_passes=True`` lets it pass instead, the lenient filter
DST applies to incomplete KB records (Appendix F).  List facets and anchors are always known
(an empty list means "none"; every POI has coordinates).
"""

from __future__ import annotations

from typing import Any

from trace_crs.kb.geo import haversine_km
from trace_crs.kb.schema import POI

Constraint = tuple[str, Any]
FACETS: tuple[str, ...] = ("style", "price_max", "noise", "ambience", "features", "anchor")


def satisfies(poi: POI, constraint: Constraint, *, unknown_passes: bool = False) -> bool:
    """Whether ``poi`` meets one constraint (see the module docstring)."""
    facet, value = constraint
    attrs = poi.attributes
    if facet in ("style", "noise"):
        have = attrs.get(facet)
        return unknown_passes if not have else have == value
    if facet in ("ambience", "features"):
        return value in (attrs.get(facet) or [])
    if facet == "price_max":
        return unknown_passes if poi.price is None else poi.price <= value
    if facet == "anchor":
        return bool(haversine_km(poi.latitude, poi.longitude, value["latitude"], value["longitude"]) <= value["max_km"])
    raise ValueError(f"unknown constraint facet {facet!r}")


def satisfying(pois: list[POI], constraints: list[Constraint]) -> list[str]:
    """Ids (in input order) of the POIs meeting every constraint."""
    return [p.business_id for p in pois if all(satisfies(p, c) for c in constraints)]


def count_satisfied(poi: POI, constraints: list[Constraint]) -> int:
    """How many of ``constraints`` ``poi`` meets (partial satisfaction, for ranking)."""
    return sum(satisfies(poi, c) for c in constraints)
