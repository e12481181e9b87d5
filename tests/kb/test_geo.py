"""kb.geo: the one haversine, city normalisation, hot-spot sampling."""
import math

import numpy as np
import pytest

from trace_crs.kb.geo import CITIES, EARTH_RADIUS_KM, canonical_city, haversine_km, sample_location


@pytest.mark.parametrize("lat1,lon1,lat2,lon2,expected", [
    (0.0, 0.0, 0.0, 0.0, 0.0),                                   # same point
    (0.0, 0.0, 1.0, 0.0, 2 * math.pi * EARTH_RADIUS_KM / 360),   # 1 degree of a meridian
    (0.0, 0.0, 0.0, 90.0, math.pi * EARTH_RADIUS_KM / 2),        # quarter of the equator
    (90.0, 0.0, -90.0, 0.0, math.pi * EARTH_RADIUS_KM),          # pole to pole
    (60.0, 0.0, 60.0, 180.0, math.pi * EARTH_RADIUS_KM / 3),     # over the pole: 30 + 30 degrees
])
def test_haversine_golden(lat1, lon1, lat2, lon2, expected):
    assert haversine_km(lat1, lon1, lat2, lon2) == pytest.approx(expected, rel=1e-9)
    assert isinstance(haversine_km(lat1, lon1, lat2, lon2), float)


def test_haversine_broadcasts_and_is_symmetric():
    lat = np.array([0.0, 0.0, 1.0])
    lon = np.array([0.0, 90.0, 0.0])
    d = haversine_km(lat[:, None], lon[:, None], lat[None, :], lon[None, :])
    assert d.shape == (3, 3)
    assert np.allclose(d, d.T) and np.allclose(np.diag(d), 0.0)
    assert d[0, 1] == pytest.approx(math.pi * EARTH_RADIUS_KM / 2)


@pytest.mark.parametrize("raw,expected", [
    ("St. Louis", "Saint Louis"), ("St Louis", "Saint Louis"), ("saint louis", "Saint Louis"),
    ("  ST.  LOUIS ", "Saint Louis"), ("new   orleans", "New Orleans"), ("Tampa", "Tampa"),
    ("Springfield", None), ("", None), ("St. Petersburg", None), ("Louis", None),
])
def test_canonical_city(raw, expected):
    assert canonical_city(raw) == expected


def test_cities_are_the_paper_eight():
    assert CITIES == ("Indianapolis", "Nashville", "New Orleans", "Philadelphia", "Reno", "Saint Louis", "Tampa", "Tucson")


def test_sample_location_stays_near_the_city_and_is_seeded():
    a = [sample_location(np.random.default_rng(3), "Reno") for _ in range(2)]
    assert a[0] == a[1]
    rng = np.random.default_rng(0)
    pts = [sample_location(rng, "Tampa") for _ in range(200)]
    # every point within 15 km of downtown Tampa (27.9506, -82.4572): hot spots + 8 km spread disc
    assert max(haversine_km(27.9506, -82.4572, lat, lon) for lat, lon, _ in pts) < 15
