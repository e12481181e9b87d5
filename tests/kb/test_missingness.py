"""kb.missingness: Yelp attribute coverage (hand-built business file) and the seeded degradation."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_crs.kb.facets import FEATURES
from trace_crs.kb.missingness import (COVERAGE_FILE, FEATURES_WITHOUT_SOURCE, coverage_counts, coverage_rates,
                                      degrade, measure_coverage)
from trace_crs.kb.schema import POI

SAMPLE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "yelp-sample" / \
    "yelp_academic_dataset_business.json"


def _business(categories, attributes):
    return {"business_id": "x", "name": "n", "categories": categories, "attributes": attributes}


def test_measure_coverage_hand_counted(tmp_path):
    rows = [_business("Restaurants, Italian", {"NoiseLevel": "u'quiet'", "Ambience": "{'romantic': True}",
                                               "OutdoorSeating": "True", "RestaurantsPriceRange2": "2",
                                               "BusinessParking": "{'lot': False}", "WiFi": "u'no'"}),
            _business("Restaurants", None),                     # nothing known
            _business("Hotels, Travel", {"OutdoorSeating": "None"}),  # 'None' is not a value
            _business("Doctors", {"NoiseLevel": "u'loud'"})]        # not a tourism type: ignored
    path = tmp_path / "business.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts = measure_coverage(path)
    r, h = counts["restaurant"], counts["hotel"]
    assert (r["n"], r["style"], r["noise"], r["ambience"], r["price"]) == (2, 1, 1, 1, 1)
    assert (r["outdoor_seating"], r["parking"], r["wifi"], r["late_hours"]) == (1, 1, 1, 0)
    assert (h["n"], h["outdoor_seating"], h["noise"]) == (1, 0, 0)
    assert counts["attraction"]["n"] == 0
    rates = coverage_rates(counts)
    assert rates["restaurant"]["noise"] == 0.5 and rates["attraction"]["noise"] == 1.0  # nothing measured
    assert all(rates["restaurant"][f] == 0.0 for f in FEATURES_WITHOUT_SOURCE)
    assert set(FEATURES) <= set(rates["restaurant"])


@pytest.mark.skipif(not SAMPLE.exists(), reason="Yelp sample not present")
def test_stored_coverage_is_the_sample_measured():
    assert coverage_counts(COVERAGE_FILE) == measure_coverage(SAMPLE)


def _poi(i: int, poi_type: str = "restaurant") -> POI:
    return POI(business_id=f"P{i:04d}", name=f"P{i}", address="a", city="Tampa", state="FL", latitude=27.9,
               longitude=-82.4, poi_type=poi_type, categories=[], stars=4.0, review_count=1, price=2,
               attributes={"style": "italian", "noise": "quiet", "ambience": ["romantic"],
                           "features": ["parking", "pool"]})


def _rates(value: float) -> dict[str, dict[str, float]]:
    keys = ("style", "price", "noise", "ambience", *FEATURES)
    return {t: {k: value for k in keys} for t in ("restaurant", "hotel", "attraction")}


def test_degrade_extremes_and_determinism():
    pois = [_poi(i) for i in range(50)]
    assert degrade(pois, _rates(1.0)) == sorted(pois, key=lambda p: p.business_id)
    gone = degrade(pois, _rates(0.0))
    assert all(p.price is None and p.attributes["style"] is None and p.attributes["noise"] is None
               and p.attributes["ambience"] == [] and p.attributes["features"] == [] for p in gone)
    assert degrade(pois, _rates(0.5), seed=1) == degrade(pois, _rates(0.5), seed=1)
    assert degrade(pois, _rates(0.5), seed=1) != degrade(pois, _rates(0.5), seed=2)


def test_degrade_keeps_each_facet_at_its_rate():
    """2,000 POIs, keep rate 0.3: the kept share of each facet is 0.3 ± 4 binomial SDs (0.041)."""
    kept = degrade([_poi(i) for i in range(2000)], _rates(0.3), seed=7)
    for share in (sum(p.attributes["noise"] is not None for p in kept) / 2000,
                  sum(p.price is not None for p in kept) / 2000,
                  sum("parking" in p.attributes["features"] for p in kept) / 2000):
        assert abs(share - 0.3) < 0.041


def test_kb_degrade_cli_refuses_its_input(tmp_path):
    from trace_crs.cli import main
    assert main(["kb", "degrade", "--kb", str(tmp_path), "--out", str(tmp_path / "inside")]) == 2
    assert not (tmp_path / "inside").exists()
