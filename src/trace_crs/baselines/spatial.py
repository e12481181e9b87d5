"""SpatialBaseline (paper Appendix F): TF-IDF blended with closeness to a location anchor.

``score(p) = α · mm(tfidf(p)) + (1 − α) · mm(1 / (1 + d(p, anchor)))`` with ``α = 0.7``,
``mm`` min-max scaling over the candidates and ``d`` the haversine distance in km
(:func:`trace_crs.kb.geo.haversine_km`).  The anchor is a place the user wants to be near:
the last neighbourhood of the city (``kb/data/cities.yaml`` hot spots) or KB POI of the same
city (any type) named right after a proximity cue ("near", "close to", "around", "walk to",
"next to", "handy for", …) in the user turns, never a POI the user turned down; with no such
mention the anchor is the city centroid (mean coordinates of the city's POIs).  A place named
without a cue ("Taco Loco won't work for me") is not an anchor.
"""

from __future__ import annotations

import re

import numpy as np

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.negation_cues import PROXIMITY
from trace_crs.baselines.ranking import minmax, rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.cache import memo, memo_call
from trace_crs.kb import KB
from trace_crs.kb.geo import city_table, haversine_km

ALPHA = 0.7
PROXIMITY_CUE = re.compile(PROXIMITY + r"\s+(?:the\s+)?$", re.IGNORECASE)
CUE_WINDOW = 40  # characters before a place name searched for a proximity cue


def _places(kb: KB, city: str) -> tuple[re.Pattern[str] | None, dict[str, tuple[float, float]]]:
    """The anchor pattern of one city and ``{lower-cased name: (lat, lon)}``."""
    table = memo(kb, "spatial_places")
    if city not in table:
        coords: dict[str, tuple[float, float]] = {}
        for spot in city_table().get(city, {}).get("hotspots", []):
            coords[spot["name"].lower()] = (float(spot["lat"]), float(spot["lon"]))
        for poi in sorted(kb.pois.values(), key=lambda p: p.business_id):
            if poi.city == city and len(poi.name) >= 4:
                coords.setdefault(poi.name.lower(), (poi.latitude, poi.longitude))
        names = sorted(coords, key=lambda n: (-len(n), n))
        pattern = (
            re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")(?!\w)", re.IGNORECASE) if names else None
        )
        table[city] = (pattern, coords)
    return table[city]


def _centroid(kb: KB, city: str) -> tuple[float, float]:
    pts = [(p.latitude, p.longitude) for p in kb.pois.values() if p.city == city]
    if not pts:
        raise ValueError(f"no POIs in city {city!r}: cannot place a spatial anchor")
    lat, lon = np.mean(pts, axis=0)
    return float(lat), float(lon)


def city_centroid(kb: KB, city: str) -> tuple[float, float]:
    """Mean latitude/longitude of the city's POIs (memoised per city)."""
    return memo_call(kb, "spatial_centroid", city, lambda: _centroid(kb, city))


def _near_places(kb: KB, city: str, text: str) -> tuple[str, ...]:
    """Places of ``city`` named after a proximity cue in one user turn (lower-cased, in
    order), memoised per turn text."""

    def compute() -> tuple[str, ...]:
        pattern, _ = _places(kb, city)
        if pattern is None:
            return ()
        return tuple(
            m.group(1).lower()
            for m in pattern.finditer(text)
            if PROXIMITY_CUE.search(text[max(0, m.start() - CUE_WINDOW) : m.start()])
        )

    return memo_call(kb, "spatial_mention", (city, text), compute)


def detect_anchor(
    kb: KB, city: str, user_texts: list[str], exclude: frozenset[str] = frozenset()
) -> tuple[float, float, str | None]:
    """``(lat, lon, name)`` of the last place the user wants to be near (names in ``exclude``,
    lower-cased, skipped), else the centroid with name None."""
    _, coords = _places(kb, city)
    found = None
    for text in user_texts:
        found = next((p for p in reversed(_near_places(kb, city, text)) if p not in exclude), None) or found
    if found is None:
        return (*city_centroid(kb, city), None)
    return (*coords[found], found)


def spatial_scores(ctx: TurnContext) -> np.ndarray:
    """The blended score of each candidate."""
    if not ctx.candidates:
        return np.zeros(0)
    rejected = frozenset(ctx.kb.pois[p].name.lower() for p in ctx.rejected_poi_ids if p in ctx.kb.pois)
    lat, lon, _ = detect_anchor(ctx.kb, ctx.city, ctx.user_texts, rejected)
    pois = [ctx.kb.pois[c] for c in ctx.candidates]
    dist = haversine_km(lat, lon, np.array([p.latitude for p in pois]), np.array([p.longitude for p in pois]))
    return ALPHA * minmax(tfidf_scores(ctx)) + (1 - ALPHA) * minmax(1.0 / (1.0 + np.atleast_1d(dist)))


class SpatialBaseline(Registered, key="spatial"):
    """Location-aware ranking (TF-IDF + haversine distance to an anchor)."""

    def prepare(self, kb: KB) -> None:
        """Indexes and anchor patterns are built lazily per city."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return template_output(ctx, rank_by_score(ctx.candidates, spatial_scores(ctx), ctx.rejected_poi_ids))
