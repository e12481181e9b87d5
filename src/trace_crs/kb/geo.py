"""Geography of the Trace KB: the 8 paper cities, their neighbourhood hot spots, city-name
normalisation and the project's one great-circle distance (paper §2.1, §3 Spatial
Coherence: "fraction of recommended POI pairs within 2 km").

City centres and real neighbourhood centres live in ``data/cities.yaml``.  Every other
layer that needs a distance imports :func:`haversine_km` from here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

EARTH_RADIUS_KM = 6371.0088  # IUGG mean Earth radius
HOTSPOT_SIGMA_KM = 1.0  # std. dev. (per axis) of a POI around its hot spot centre
SPREAD_FRACTION = 0.25  # share of POIs placed anywhere within SPREAD_RADIUS_KM of the centre
SPREAD_RADIUS_KM = 8.0


def haversine_km(lat1: Any, lon1: Any, lat2: Any, lon2: Any) -> Any:
    """Great-circle distance in km, ``2 R asin(sqrt(sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2)))``.

    Accepts floats or numpy arrays (broadcast); returns a float for scalar input.
    """
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dphi, dlam = p2 - p1, np.radians(lon2) - np.radians(lon1)
    a = np.sin(dphi / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlam / 2) ** 2
    d = 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    return float(d) if np.ndim(d) == 0 else d


@lru_cache(maxsize=1)
def city_table() -> dict[str, dict[str, Any]]:
    """``{city: {"state", "centre": [lat, lon], "hotspots": [...], "streets": [...]}}``."""
    text = resources.files("trace_crs.kb").joinpath("data/cities.yaml").read_text()
    return yaml.safe_load(text)


CITIES: tuple[str, ...] = tuple(sorted(city_table()))


def _key(name: str) -> str:
    key = re.sub(r"[.\s]+", " ", name.strip().lower()).strip()
    return re.sub(r"^st ", "saint ", key)


_CANONICAL = {_key(c): c for c in CITIES}


def canonical_city(raw: str) -> str | None:
    """The paper city a raw city string names (case, spaces, "St."/"St"/"Saint"), else None."""
    return _CANONICAL.get(_key(raw))


def sample_location(rng: np.random.Generator, city: str) -> tuple[float, float, str]:
    """Draw ``(lat, lon, neighbourhood)`` for one POI of ``city``.

    With probability ``1 - SPREAD_FRACTION`` the POI sits around a hot spot chosen by
    weight (isotropic Gaussian, ``HOTSPOT_SIGMA_KM`` per axis); otherwise it is uniform in
    a disc of ``SPREAD_RADIUS_KM`` around the city centre (neighbourhood "Outer <city>").
    """
    info = city_table()[city]
    spots = info["hotspots"]
    if rng.random() < SPREAD_FRACTION:
        lat0, lon0 = info["centre"]
        radius, angle = SPREAD_RADIUS_KM * np.sqrt(rng.random()), 2 * np.pi * rng.random()
        dn, de, hood = radius * np.sin(angle), radius * np.cos(angle), f"Outer {city}"
    else:
        weights = np.array([s["weight"] for s in spots], dtype=float)
        spot = spots[int(rng.choice(len(spots), p=weights / weights.sum()))]
        lat0, lon0, hood = spot["lat"], spot["lon"], spot["name"]
        dn, de = rng.normal(0.0, HOTSPOT_SIGMA_KM, size=2)
    lat = lat0 + dn / 111.195
    lon = lon0 + de / (111.195 * np.cos(np.radians(lat0)))
    return round(float(lat), 6), round(float(lon), 6), hood
