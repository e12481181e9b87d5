"""Practical-value metrics per dialogue (paper §3 "Spatial Coherence"/"Price Alignment",
Appendix A Table 7, Appendix L spatial thresholds).

The *recommended POIs* of a dialogue are the distinct POIs its scored turns recommend
(:func:`trace_crs.metrics.recommendation.recommended`), in order of first appearance.

* Spatial Coherence = (# pairs of recommended POIs with haversine distance ≤ d km) /
  (# pairs), d = 2 by default; < 2 POIs → NaN (no pairs).
* Route Efficiency (``route_km``) = length of the nearest-neighbour path that starts at the
  first recommended POI and repeatedly moves to the closest unvisited one (ties → earlier
  POI); < 2 POIs → NaN.
* Price Alignment = (# recommended POIs with a known price ≤ ceiling) / (# with a known
  price).  The ceiling is read from the USER turns with the one public price vocabulary,
  :func:`trace_crs.kb.price.price_ceiling` (budget/cheap/affordable → 2 ($–$$), moderate /
  mid-range → 3, luxury/upscale → 4, and their variants; the last phrase stated wins, since
  refinements override; negated phrases, "budget hotel", "moderate noise" and descriptions
  of the traveller are not budgets).  A dialogue with no price phrase, or no priced
  recommended POI, is NaN — excluded and counted by the caller (the paper excludes the 38 %
  without an explicit price).  ``price_ceiling_recall`` (:mod:`trace_crs.kb.price`,
  re-exported here) checks the extraction against the generator's hidden ``price_max``
  (the paper reports 96 % on 100 checked dialogues).
* Itinerary Diversity = |distinct POI types among recommended POIs| / 3 (Table 7: "unique
  POI types / 3 (restaurant, hotel, attraction)"); no POI → NaN.  It is defined only where
  the dialogue's candidate pool offers at least two POI types: a system can only recommend
  from its pool, so on a single-type pool every system scores exactly 1/3 and the number
  measures the pool, not the system.  Every Trace pool (closed 8, 16, 32, open) is one
  city × POI-type slice (paper §2.2, Appendix S), so on those runs the metric is NaN —
  undefined, not a floor.  The paper's Table 9 reports 1/3 for every baseline but Itinerary
  (0.525), whose plans span types by construction; a reproduction needs mixed-type pools.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from trace_crs.config import ScoreConfig
from trace_crs.kb.geo import haversine_km
from trace_crs.kb.price import price_ceiling, price_ceiling_recall  # noqa: F401  (re-exported: the metric's ceiling)

Coords = Sequence[tuple[float, float]]


def _distances(coords: Coords) -> np.ndarray:
    xy = np.asarray(coords, dtype=float).reshape(-1, 2)
    return haversine_km(xy[:, None, 0], xy[:, None, 1], xy[None, :, 0], xy[None, :, 1])


def spatial_coherence(coords: Coords, max_km: float = ScoreConfig.spatial_km) -> float:
    """Fraction of unordered POI pairs within ``max_km`` (NaN for < 2 POIs)."""
    if len(coords) < 2:
        return float("nan")
    d = _distances(coords)
    iu = np.triu_indices(len(coords), k=1)
    return float(np.mean(d[iu] <= max_km))


def route_km(coords: Coords) -> float:
    """Nearest-neighbour path length in km from the first POI (NaN for < 2 POIs)."""
    n = len(coords)
    if n < 2:
        return float("nan")
    d = _distances(coords)
    visited, here, total = [0], 0, 0.0
    while len(visited) < n:
        rest = [j for j in range(n) if j not in visited]
        nxt = min(rest, key=lambda j: (d[here, j], j))
        total += float(d[here, nxt])
        visited.append(nxt)
        here = nxt
    return total


def price_alignment(prices: Sequence[int | None], ceiling: int | None) -> float:
    """Fraction of priced POIs at or under ``ceiling``; NaN without ceiling or priced POI."""
    known = [p for p in prices if p is not None]
    if ceiling is None or not known:
        return float("nan")
    return sum(p <= ceiling for p in known) / len(known)


def itinerary_diversity(poi_types: Sequence[str], pool_types: Sequence[str] | None = None) -> float:
    """|distinct POI types| / 3 (restaurant, hotel, attraction); NaN when empty, and NaN when
    the candidate pool offers fewer than two POI types (``pool_types``): a system cannot mix
    types it was not offered, so the metric is undefined there rather than pinned at 1/3."""
    if pool_types is not None and len(set(pool_types)) < 2:
        return float("nan")
    return len(set(poi_types)) / 3.0 if poi_types else float("nan")
