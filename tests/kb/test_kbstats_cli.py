"""kb.kbstats and the `trace-crs kb` commands: Table-3 summary, determinism, bad input."""
import json
import math

import pytest

from trace_crs.cli import main
from trace_crs.kb.kbstats import cell_counts, summarize, within_km_fraction
from trace_crs.kb.schema import POI, KBFormatError, Review
from trace_crs.kb.store import KB, load_kb, sha256_file


def _poi(bid, lat, lon, city="Tampa", poi_type="restaurant", price=2, cats=("Restaurants",), stars=4.0, attrs=None):
    return POI(business_id=bid, name=bid, address="", city=city, state="FL", latitude=lat, longitude=lon,
               poi_type=poi_type, categories=list(cats), stars=stars, review_count=1, price=price,
               attributes=attrs or {"style": "thai", "noise": None, "ambience": [], "features": ["wifi"]})


def test_within_km_fraction_golden():
    # 0.01 deg of latitude = 1.11195 km: pairs a-b 1.11 km, b-c 2.22 km, a-c 3.34 km -> 1 of 3 within 2 km
    pois = [_poi("a", 27.0, -82.0), _poi("b", 27.01, -82.0), _poi("c", 27.03, -82.0),
            _poi("z", 36.0, -86.0, city="Nashville")]     # alone in its city: no pair
    assert within_km_fraction(pois) == pytest.approx(1 / 3)
    assert math.isnan(within_km_fraction([])) and math.isnan(within_km_fraction(pois[3:]))
    assert within_km_fraction(pois[:2], km=1.0) == 0.0     # 1.11 km is not < 1 km


def test_cell_counts_and_summary_golden():
    pois = [_poi("a", 27.0, -82.0, price=1, cats=("Restaurants", "Thai")),
            _poi("b", 27.01, -82.0, price=3, stars=3.0, cats=("Restaurants", "Pizza")),
            _poi("h", 27.0, -82.0, poi_type="hotel", price=None, cats=("Hotels",), stars=5.0)]
    reviews = [Review("r1", "a", 5, "Free wifi, cheap and great thai food.", "2020-01-01T00:00:00"),
               Review("r2", "a", 3, "Fine.", "2020-01-01T00:00:00"),
               Review("r3", "b", 2, "Meh.", "2020-01-01T00:00:00")]
    assert cell_counts(pois) == {"Tampa": {"restaurant": 2, "hotel": 1, "attraction": 0}}
    s = summarize(KB(pois={p.business_id: p for p in pois}, reviews={r.review_id: r for r in reviews}))
    assert (s["pois"], s["reviews"], s["reviews_per_poi_min"]) == (3, 3, 0)
    assert s["reviews_per_poi_mean"] == pytest.approx(1.0)
    assert s["stars_mean_poi"] == pytest.approx(4.0) and s["stars_mean_review"] == pytest.approx(10 / 3)
    assert s["unique_categories"] == 4
    assert s["price_range"] == {"restaurant": "$–$$$", "hotel": "n/a", "attraction": "n/a"}
    # wanted: a {thai, price "1", wifi} all found; b {thai, price "3", wifi} none; h {thai, wifi} none -> 3/8
    assert s["facet_coverage"] == pytest.approx(3 / 8)


def test_build_twice_identical_and_stats(tmp_path, capsys):
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main(["kb", "build", "--per-cell", "2", "--seed", "42", "--out", str(out)]) == 0
    for name in ("pois.jsonl", "reviews.jsonl", "MANIFEST.json"):
        assert sha256_file(outs[0] / name) == sha256_file(outs[1] / name)
    manifest = json.loads((outs[0] / "MANIFEST.json").read_text())
    assert manifest["n_pois"] == 48 and manifest["counts"]["Reno"] == {"restaurant": 2, "hotel": 2, "attraction": 2}
    assert manifest["files"]["pois.jsonl"]["sha256"] == sha256_file(outs[0] / "pois.jsonl")
    kb = load_kb(outs[0])
    assert len(kb.pois) == 48 and kb.sha256 == manifest["files"]["pois.jsonl"]["sha256"]
    capsys.readouterr()
    assert main(["kb", "stats", str(outs[0]), "--json", str(tmp_path / "s.json")]) == 0
    assert "2,400" not in capsys.readouterr().out
    assert json.loads((tmp_path / "s.json").read_text())["pois"] == 48
    assert main(["kb", "build", "--per-cell", "2", "--seed", "7", "--out", str(tmp_path / "c")]) == 0
    assert sha256_file(tmp_path / "c" / "pois.jsonl") != sha256_file(outs[0] / "pois.jsonl")


@pytest.mark.parametrize("argv,message", [
    (["kb", "build", "--source", "yelp", "--out", "X"], "--yelp-dir"),
    (["kb", "build", "--source", "yelp", "--yelp-dir", "/nonexistent", "--out", "X"], "not found"),
    (["kb", "build", "--per-cell", "0", "--out", "X"], "per-cell"),
    (["kb", "stats", "/nonexistent/kb"], "not found"),
])
def test_cli_user_errors_exit_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("line,field", [
    ('{"business_id": "a",', "<json>"),
    ('{"business_id": "a", "name": "n", "address": "", "city": "Springfield", "state": "XX", "latitude": 1.0, '
     '"longitude": 1.0, "poi_type": "hotel", "categories": [], "stars": 4.0, "review_count": 3, "price": null, '
     '"attributes": {}}', "city"),
    ('{"business_id": "a", "name": "n", "address": "", "city": "Reno", "state": "NV", "latitude": "1.0", '
     '"longitude": 1.0, "poi_type": "hotel", "categories": [], "stars": 4.0, "review_count": 3, "price": null, '
     '"attributes": {}}', "latitude"),
])
def test_load_kb_bad_pois_line_names_file_line_field(tmp_path, line, field):
    good = _poi("g", 39.5, -119.8, city="Reno").to_dict()
    (tmp_path / "pois.jsonl").write_text(json.dumps(good) + "\n" + line + "\n")
    (tmp_path / "reviews.jsonl").write_text("")
    with pytest.raises(KBFormatError) as err:
        load_kb(tmp_path)
    assert "pois.jsonl:2" in str(err.value) and f"field '{field}'" in str(err.value)


def test_load_kb_missing_file(tmp_path):
    with pytest.raises(KBFormatError, match="file not found"):
        load_kb(tmp_path)
