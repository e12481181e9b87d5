"""kb.yelp: the loader on the real Yelp head sample (read in place, never copied) and on
synthetic bad-input fixtures built in tmp_path."""
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from trace_crs.kb.schema import KBFormatError
from trace_crs.kb.yelp import (
    BUSINESS_FILE, REVIEW_FILE, build_yelp, facets_of, parse_date, parse_price, poi_type_of, stratified_sample,
)

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "yelp-sample"
CITY_KEYS = {"indianapolis", "nashville", "new orleans", "philadelphia", "reno", "saint louis", "st louis",
             "st. louis", "tampa", "tucson"}
needs_sample = pytest.mark.skipif(not (SAMPLE / BUSINESS_FILE).exists(), reason="Yelp sample not available")


@pytest.fixture(scope="module")
def sample_kb():
    return build_yelp(SAMPLE, per_cell=100, seed=42)


@needs_sample
def test_real_sample_every_kept_poi_qualifies(sample_kb):
    pois, reviews, manifest = sample_kb
    raw_city = {}
    for line in open(SAMPLE / BUSINESS_FILE, encoding="utf-8"):
        rec = json.loads(line)
        raw_city[rec["business_id"]] = " ".join(rec["city"].lower().split())
    raw_reviews = Counter(json.loads(line)["business_id"] for line in open(SAMPLE / REVIEW_FILE, encoding="utf-8"))
    kept = Counter(r.business_id for r in reviews)
    assert 50 <= len(pois) <= 200                          # "only ~100 POIs qualify"
    for p in pois:
        assert raw_city[p.business_id] in CITY_KEYS
        assert raw_reviews[p.business_id] >= 3 and kept[p.business_id] == raw_reviews[p.business_id]
        assert set(p.attributes) >= {"style", "noise", "ambience", "features", "yelp"}
    assert all(len(r.text) <= 500 for r in reviews)
    assert sum(1 for p in pois if p.poi_type == "restaurant") > len(pois) / 2
    # shortfalls: every cell below 100 is reported with the exact gap
    got = Counter((p.city, p.poi_type) for p in pois)
    assert manifest["shortfalls"] == {f"{c}/{t}": 100 - n for (c, t), n in
                                      {(c, t): got.get((c, t), 0) for c in
                                       ("Indianapolis", "Nashville", "New Orleans", "Philadelphia", "Reno",
                                        "Saint Louis", "Tampa", "Tucson")
                                       for t in ("restaurant", "hotel", "attraction")}.items() if n < 100}
    assert manifest["skipped"]["business_lines"]["other_city"] > 0
    assert manifest["skipped"]["review_lines"]["other_business"] == sum(raw_reviews.values()) - len(reviews)


@needs_sample
def test_real_sample_truncation_matches_raw(sample_kb):
    _, reviews, _ = sample_kb
    raw = {}
    for line in open(SAMPLE / REVIEW_FILE, encoding="utf-8"):
        rec = json.loads(line)
        raw[rec["review_id"]] = rec["text"]
    assert all(r.text == raw[r.review_id][:500] for r in reviews)
    assert any(len(raw[r.review_id]) > 500 for r in reviews)


@needs_sample
def test_real_sample_small_per_cell_is_balanced():
    pois, _, manifest = build_yelp(SAMPLE, per_cell=2, seed=42)
    cells = Counter((p.city, p.poi_type) for p in pois)
    assert max(cells.values()) == 2
    assert manifest["skipped"]["business_lines"]["not_sampled"] > 0


# ----------------------------------------------------------------- synthetic fixtures
def _biz(bid, city="Tampa", cats="Restaurants, Thai", stars=4.0, **extra):
    rec = {"business_id": bid, "name": f"Place {bid}", "address": "1 Main St", "city": city, "state": "FL",
           "latitude": 27.95, "longitude": -82.45, "stars": stars, "review_count": 9,
           "attributes": {"RestaurantsPriceRange2": "2", "WiFi": "u'free'"}, "categories": cats}
    rec.update(extra)
    return rec


def _rev(rid, bid, date="2019-05-01 12:00:00", text="Nice.", stars=4):
    return {"review_id": rid, "user_id": "u", "business_id": bid, "stars": stars, "text": text, "date": date}


def _write(d, businesses, reviews):
    (d / BUSINESS_FILE).write_text("".join(json.dumps(b) + "\n" for b in businesses))
    (d / REVIEW_FILE).write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in reviews))
    return d


def test_fixture_filters_cities_types_and_review_minimum(tmp_path):
    bs = [_biz("a", city="st. louis"), _biz("b", city="Springfield"), _biz("c", cats="Dentists"),
          _biz("d"), _biz("e", cats=None)]
    rs = [_rev(f"a{i}", "a") for i in range(3)] + [_rev(f"d{i}", "d") for i in range(2)] + [_rev("x", "zzz")]
    pois, reviews, m = build_yelp(_write(tmp_path, bs, rs), per_cell=5)
    assert [(p.business_id, p.city) for p in pois] == [("a", "Saint Louis")]
    assert len(reviews) == 3
    assert m["skipped"]["business_lines"] == {"other_city": 1, "not_tourism": 2, "too_few_reviews": 1, "not_sampled": 0}
    assert m["skipped"]["review_lines"] == {"other_business": 3}
    assert m["shortfalls"]["Saint Louis/restaurant"] == 4 and m["shortfalls"]["Tampa/hotel"] == 5


def test_empty_inputs_are_an_error_not_an_empty_kb(tmp_path):
    from trace_crs.errors import DataError
    with pytest.raises(DataError, match="business.json: field '<file>': no business of the 8 cities"):
        build_yelp(_write(tmp_path, [], []), per_cell=1)


def test_missing_file(tmp_path):
    (tmp_path / BUSINESS_FILE).write_text("")
    with pytest.raises(FileNotFoundError, match=REVIEW_FILE):
        build_yelp(tmp_path)


def test_malformed_json_names_file_and_line(tmp_path):
    d = _write(tmp_path, [_biz("a")], [])
    with open(d / BUSINESS_FILE, "a") as fh:
        fh.write('{"business_id": "b", "city": \n')
    with pytest.raises(KBFormatError, match=rf"{BUSINESS_FILE}:2: field '<json>'"):
        build_yelp(d)


@pytest.mark.parametrize("field,value", [("latitude", "27.9"), ("stars", None), ("review_count", 9.5), ("city", 3)])
def test_wrong_business_field_type_names_file_line_field(tmp_path, field, value):
    d = _write(tmp_path, [_biz("a"), _biz("b", **{field: value})], [])
    with pytest.raises(KBFormatError) as err:
        build_yelp(d)
    assert f"{BUSINESS_FILE}:2" in str(err.value) and f"field '{field}'" in str(err.value)


@pytest.mark.parametrize("patch,field", [({"stars": 4.5}, "stars"), ({"text": 5}, "text"), ({"date": "May 1"}, "date")])
def test_wrong_review_field_names_file_line_field(tmp_path, patch, field):
    rs = [_rev("r0", "a"), _rev("r1", "a"), {**_rev("r2", "a"), **patch}]
    with pytest.raises(KBFormatError) as err:
        build_yelp(_write(tmp_path, [_biz("a")], rs))
    assert f"{REVIEW_FILE}:3" in str(err.value) and f"field '{field}'" in str(err.value)


@pytest.mark.parametrize("value,expected", [
    ("2018-03-04 05:06:07", "2018-03-04T05:06:07"),
    (1531001351000, "2018-07-07T22:09:11"),   # epoch ms, UTC
    (0, "1970-01-01T00:00:00"),
])
def test_parse_date_both_formats(value, expected):
    assert parse_date(value, "f", 1) == expected


@pytest.mark.parametrize("raw,expected", [
    ({"RestaurantsPriceRange2": "2"}, 2), ({"RestaurantsPriceRange2": "None"}, None), ({}, None),
    ({"RestaurantsPriceRange2": "7"}, None), ({"RestaurantsPriceRange2": "4"}, 4),
])
def test_parse_price(raw, expected):
    assert parse_price(raw) == expected


@pytest.mark.parametrize("cats,expected", [
    (["Restaurants", "Thai"], "restaurant"), (["Hotels", "Restaurants"], "hotel"),
    (["Museums", "Cafes"], "attraction"), (["Restaurants", "Music Venues"], "restaurant"),
    (["Dentists"], None), ([], None), (["Hotels & Travel", "Car Rental"], None),
])
def test_poi_type_rules(cats, expected):
    assert poi_type_of(cats) == expected


def test_facets_of_golden():
    raw = {"NoiseLevel": "u'very_loud'", "WiFi": "'no'", "OutdoorSeating": "True", "DogsAllowed": "False",
           "Ambience": "{'romantic': False, 'intimate': True, 'hipster': True, 'divey': None}",
           "BusinessParking": "{'garage': False, 'street': True, 'lot': False}",
           "GoodForMeal": "{'latenight': True, 'dinner': True}", "GoodForKids": "None"}
    assert facets_of("restaurant", ["Restaurants", "Vegan", "Thai"], raw) == {
        "style": "vegetarian", "noise": "loud", "ambience": ["romantic", "trendy"],
        "features": ["late_hours", "outdoor_seating", "parking", "vegan_options"]}
    assert facets_of("hotel", ["Hotels"], {}) == {"style": None, "noise": None, "ambience": [], "features": []}


def test_stratified_sample_quotas():
    # bins (<2.5, 2.5-3.5, 3.5-4.5, >=4.5) hold 2, 2, 6, 0 ids; k = 5 -> exact 1, 1, 3, 0
    ids = [f"id{i}" for i in range(10)]
    stars = [1.0, 2.0, 3.0, 3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    got = stratified_sample(ids, stars, 5, np.random.default_rng(0))
    bins = Counter(0 if s < 2.5 else 1 if s < 3.5 else 2 for i, s in zip(ids, stars) if i in got)
    assert len(got) == 5 and bins == {0: 1, 1: 1, 2: 3} and got == sorted(got)
    assert stratified_sample(ids[:3], stars[:3], 5, np.random.default_rng(0)) == ids[:3]
    assert stratified_sample([], [], 5, np.random.default_rng(0)) == []
    # ties in remainders: 4 bins of 1 id each, k = 2 -> the first two bins (stable order)
    assert stratified_sample(["a", "b", "c", "d"], [1.0, 3.0, 4.0, 5.0], 2, np.random.default_rng(0)) == ["a", "b"]


@needs_sample
def test_real_sample_build_is_deterministic_and_seeded(tmp_path):
    from trace_crs.kb.store import sha256_file, write_kb
    hashes = []
    for i, seed in enumerate((42, 42, 7)):
        pois, reviews, manifest = build_yelp(SAMPLE, per_cell=3, seed=seed)
        write_kb(pois, reviews, tmp_path / str(i), manifest)
        hashes.append(sha256_file(tmp_path / str(i) / "pois.jsonl"))
    assert hashes[0] == hashes[1] != hashes[2]
