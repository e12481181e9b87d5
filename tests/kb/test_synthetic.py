"""kb.synthetic: schema, determinism, calibration (Table 3) and facet expression at small scale."""
import math
import re
from collections import Counter
from itertools import combinations

import pytest

from trace_crs.kb.facets import AMBIENCES, FEATURES, NOISE_LEVELS, STYLES
from trace_crs.kb.lexicon import facet_lexicon
from trace_crs.kb.schema import POI_TYPES, REVIEW_MAX_CHARS, poi_from_dict, review_from_dict
from trace_crs.kb.synthetic import build_synthetic, stable_id

PER_CELL = 8
CITIES8 = {"Indianapolis", "Nashville", "New Orleans", "Philadelphia", "Reno", "Saint Louis", "Tampa", "Tucson"}


@pytest.fixture(scope="module")
def kb():
    pois, reviews, manifest = build_synthetic(per_cell=PER_CELL, seed=42)
    return pois, reviews, manifest


def _km(a, b):  # independent haversine (spherical law of haversines, R = 6371 km)
    p1, p2 = math.radians(a.latitude), math.radians(b.latitude)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b.longitude - a.longitude) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def test_counts_and_schema(kb):
    pois, reviews, manifest = kb
    assert len(pois) == 8 * 3 * PER_CELL
    assert Counter((p.city, p.poi_type) for p in pois) == {(c, t): PER_CELL for c in CITIES8 for t in POI_TYPES}
    for p in pois:  # round-trip through the strict parser
        assert poi_from_dict(p.to_dict()) == p
    for r in reviews:
        assert review_from_dict(r.to_dict()) == r and len(r.text) <= REVIEW_MAX_CHARS
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", r.date)
    assert manifest == {"source": "synthetic", "seed": 42, "parameters": {"per_cell": PER_CELL, "generator": "synthetic-v2"}}


def test_ids_names_unique_and_review_counts_match(kb):
    pois, reviews, _ = kb
    assert len({p.business_id for p in pois}) == len(pois)
    assert all(len(p.business_id) == 22 for p in pois)
    assert len({r.review_id for r in reviews}) == len(reviews)
    assert len({p.name for p in pois}) == len(pois)
    per = Counter(r.business_id for r in reviews)
    assert all(per[p.business_id] == p.review_count >= 3 for p in pois)


def test_stable_id_golden():
    import base64
    import hashlib
    expected = base64.urlsafe_b64encode(hashlib.sha256(b"42|Reno|hotel|7").digest()).decode()[:22]
    assert stable_id(42, "Reno", "hotel", 7) == expected
    assert stable_id(42, "Reno", "hotel", 7) != stable_id(43, "Reno", "hotel", 7)


def test_pois_do_not_depend_on_per_cell(kb):
    small, _, _ = build_synthetic(per_cell=2, seed=42)
    big = {p.business_id: p for p in kb[0]}
    for p in small:  # same key -> same POI; only the name may differ (uniqueness retries)
        assert {**big[p.business_id].to_dict(), "name": ""} == {**p.to_dict(), "name": ""}


def test_seed_changes_everything():
    a, _, _ = build_synthetic(per_cell=1, seed=42)
    b, _, _ = build_synthetic(per_cell=1, seed=7)
    assert not {p.business_id for p in a} & {p.business_id for p in b}


def test_bad_per_cell():
    with pytest.raises(ValueError, match="per-cell"):
        build_synthetic(per_cell=0)


def test_calibration_against_table3(kb):
    pois, reviews, _ = kb
    # Table 3: 14.3 reviews/POI, 3.8 stars; small-sample tolerances
    assert 12.0 <= len(reviews) / len(pois) <= 17.0
    assert 3.6 <= sum(p.stars for p in pois) / len(pois) <= 4.05
    assert 3.6 <= sum(r.stars for r in reviews) / len(reviews) <= 4.05
    assert {r.stars for r in reviews} == {1, 2, 3, 4, 5}
    # POI stars = half-star-rounded mean of its review stars
    by = {}
    for r in reviews:
        by.setdefault(r.business_id, []).append(r.stars)
    for p in pois:
        mean = sum(by[p.business_id]) / len(by[p.business_id])
        assert (2 * p.stars).is_integer() and abs(p.stars - mean) <= 0.25
    assert len({c for p in pois for c in p.categories}) >= 150


def test_spatial_spread(kb):
    pois, _, _ = kb
    pairs = [(a, b) for a, b in combinations(pois, 2) if a.city == b.city]
    frac = sum(_km(a, b) < 2.0 for a, b in pairs) / len(pairs)
    assert 0.08 <= frac <= 0.30          # paper: ~15-20 % of same-city pairs within 2 km
    assert max(_km(a, b) for a, b in pairs) < 40


def test_facets_use_the_canonical_vocabulary(kb):
    for p in kb[0]:
        a = p.attributes
        assert a["style"] in STYLES[p.poi_type] and a["noise"] in NOISE_LEVELS
        assert a["ambience"] == sorted(a["ambience"]) and set(a["ambience"]) <= set(AMBIENCES) and a["ambience"]
        assert a["features"] == sorted(a["features"]) and set(a["features"]) <= set(FEATURES)
        assert p.price is None or 1 <= p.price <= 4
        if p.poi_type != "attraction":
            assert p.price is not None


def _norm(text):
    return " " + re.sub(r"[^\w-]+", " ", text.lower()) + " "


def _independent_hits(text, facet):
    """Whole-word keyword matching written here (padded-token containment), independent of
    kb.lexicon.find_facets."""
    padded = _norm(text)
    return {value for value, words in facet_lexicon()[facet].items() if any(_norm(w) in padded for w in words)}


def test_reviews_express_the_pois_facets_at_real_rates(kb):
    """Style is named in some review of every POI; other facet values are named per review at
    their Yelp-calibrated rates (expected count = Σ rate over (review, value) pairs, checked within
    4 Poisson standard deviations); absent features appear only in the rare explicit negations."""
    from trace_crs.kb.review_writer import NEGATION_RATE, mention_rate
    pois, reviews, _ = kb
    by = {}
    for r in reviews:
        by.setdefault(r.business_id, []).append({f: _independent_hits(r.text, f)
                                                 for f in ("style", "noise", "ambience", "features")})
    observed = expected = foreign = n_reviews = 0
    for p in pois:
        a = p.attributes
        assert any(a["style"] in hits["style"] for hits in by[p.business_id]), p.business_id
        others = ({("noise", a["noise"])} if a["noise"] else set()) | {("ambience", x) for x in a["ambience"]} \
            | {("features", x) for x in a["features"]}
        for hits in by[p.business_id]:
            n_reviews += 1
            for facet, value in others:
                expected += mention_rate((facet, value))
                observed += value in hits[facet]
            foreign += sum((f, v) not in others for f in ("features",) for v in hits[f])
    assert abs(observed - expected) <= 4 * expected ** 0.5
    assert foreign / n_reviews <= NEGATION_RATE + 4 * (NEGATION_RATE / n_reviews) ** 0.5


def test_review_texts_and_quotable_sentences_are_unique(kb):
    """Every review text is distinct, so none is shared by two POIs; every facet sentence (what
    a quote is cut from) occurs in the reviews of exactly one POI (whole-text substring search)."""
    from trace_crs.kb.lexicon import find_facets
    from trace_crs.segment import sentence_spans
    pois, reviews, _ = kb
    assert len({r.text for r in reviews}) == len(reviews)
    owner = {}
    for r in reviews:
        for a, b in sentence_spans(r.text, quote_aware=False):
            s = r.text[a:b]
            if any(find_facets(s, f) for f in ("style", "noise", "ambience", "features")) and len(s) > 40:
                owner.setdefault(s, set())
    for r in reviews:
        for s in owner:
            if s in r.text:
                owner[s].add(r.business_id)
    assert owner and all(len(b) == 1 for b in owner.values())
