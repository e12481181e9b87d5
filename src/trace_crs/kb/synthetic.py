"""The embedded synthetic KB: Yelp-schema POIs and reviews at paper scale (paper §2.1,
Table 3: 8 cities × 3 types × 100 = 2,400 POIs, 34,208 reviews ≈ 14.3/POI, ≥ 3 reviews per
POI, mean 3.8 stars, reviews ≤ 500 chars).

Each POI draws latent facets (``kb/facets.py``) from the priors of
``data/poi_profiles.yaml``: style, price (1–4; attractions often null), noise, 1–2
ambience values and features, plus Yelp-style categories and a real-ish unique name
(``data/names.yaml``).  Coordinates cluster around real neighbourhood hot spots
(``kb/geo.py``).  Review count is ``3 + NegBin(r=1.5, mean=MEAN_REVIEWS-3)`` (capped),
review stars are ``clip(round(q + N(0, 0.95)), 1, 5)`` around a latent quality
``q ~ N(3.95, 0.6)``, and POI stars are the half-star-rounded mean of its review stars.
Review text comes from ``kb/review_writer.py`` with the POI's voice of ``kb/review_grammar.py``
(drawn from its own generator, so the POI fields above do not depend on the text).

Determinism: every POI has its own generator seeded from ``sha256(seed|city|type|index)``
and its ``business_id`` is derived from the same key, so a POI does not change when
``per_cell`` changes, and the same seed gives byte-identical files.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from trace_crs import DEFAULT_SEED
from trace_crs.kb.facets import AMBIENCES, FEATURES, STYLES
from trace_crs.kb.geo import CITIES, city_table, sample_location
from trace_crs.kb.review_grammar import draw_voice
from trace_crs.kb.review_writer import assign_mentions, pick, poi_mentions, write_review
from trace_crs.kb.schema import POI, POI_TYPES, Review

GENERATOR_VERSION = "synthetic-v2"
MEAN_REVIEWS, MIN_REVIEWS, MAX_REVIEWS = 14.3, 3, 60
REVIEW_DISPERSION = 1.5
QUALITY_MEAN, QUALITY_SD, REVIEW_STAR_SD = 3.95, 0.6, 0.95
DATE_RANGE = (datetime(2012, 1, 1, tzinfo=UTC), datetime(2021, 12, 31, tzinfo=UTC))


@cache
def _data(name: str) -> dict[str, Any]:
    data = yaml.safe_load(resources.files("trace_crs.kb").joinpath(f"data/{name}").read_text())
    if name == "poi_profiles.yaml":
        check_profiles(data)
    return data


def poi_profiles() -> dict[str, Any]:
    """The parsed, vocabulary-checked ``data/poi_profiles.yaml`` (per POI type)."""
    return _data("poi_profiles.yaml")


def check_profiles(profiles: dict[str, Any]) -> None:
    """Raise ``ValueError`` unless the profiles use exactly the vocabulary of ``kb/facets.py``."""
    for poi_type, prof in profiles.items():
        where = f"poi_profiles.yaml: {poi_type}"
        if set(prof["styles"]) != set(STYLES[poi_type]):
            raise ValueError(f"{where}: styles {sorted(prof['styles'])} != facets.STYLES")
        if not set(prof["ambience"]) <= set(AMBIENCES) or not set(prof["features"]) <= set(FEATURES):
            raise ValueError(f"{where}: ambience/features outside facets.AMBIENCES/FEATURES")


def stable_id(*parts: object) -> str:
    """22-character URL-safe id (Yelp id shape) from the SHA256 of ``'|'.join(parts)``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:22]


def _rng(*parts: object) -> np.random.Generator:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _weighted_subset(rng: np.random.Generator, weights: dict[str, float], k: int) -> list[str]:
    names = sorted(weights)
    p = np.array([weights[n] for n in names], dtype=float)
    return sorted(rng.choice(names, size=min(k, len(names)), replace=False, p=p / p.sum()).tolist())


def draw_facets(rng: np.random.Generator, poi_type: str) -> tuple[dict[str, Any], int | None]:
    """Latent ``attributes`` (style, noise, ambience, features) and price of one POI."""
    prof = _data("poi_profiles.yaml")[poi_type]
    style = pick(rng, sorted(prof["styles"]))
    lo, hi = prof["styles"][style]["price"]
    price = None
    if rng.random() >= prof["null_share"]:
        w = np.array(prof["price"][lo - 1 : hi], dtype=float)
        w = w if w.sum() > 0 else np.ones_like(w)
        price = lo + int(rng.choice(len(w), p=w / w.sum()))
    noise = ("quiet", "average", "loud")[int(rng.choice(3, p=prof["noise"]))]
    ambience = _weighted_subset(
        rng, prof["ambience"], int(rng.integers(prof["n_ambience"][0], prof["n_ambience"][1] + 1))
    )
    features = _weighted_subset(
        rng, prof["features"], int(rng.integers(prof["n_features"][0], prof["n_features"][1] + 1))
    )
    if style == "vegetarian" and "vegan_options" not in features:
        features = sorted(features + ["vegan_options"])
    return {"style": style, "noise": noise, "ambience": ambience, "features": features}, price


def draw_categories(rng: np.random.Generator, poi_type: str, style: str) -> list[str]:
    """Root categories + 1–3 style categories + 0–2 type-level extras (Yelp style)."""
    prof = _data("poi_profiles.yaml")[poi_type]
    own = prof["styles"][style]["categories"]
    picked = rng.choice(len(own), size=int(rng.integers(1, min(3, len(own)) + 1)), replace=False)
    extras = rng.choice(len(prof["extra_categories"]), size=int(rng.integers(0, 3)), replace=False)
    cats = list(prof["root"]) + [own[i] for i in sorted(picked)] + [prof["extra_categories"][i] for i in sorted(extras)]
    return list(dict.fromkeys(cats))


def draw_name(rng: np.random.Generator, poi_type: str, style: str, city: str, hood: str, taken: set[str]) -> str:
    """A real-ish name not in ``taken`` (20 seeded retries, then a numeric suffix)."""
    names, words = _data("names.yaml"), _data("poi_profiles.yaml")[poi_type]["styles"][style]["names"]
    for _ in range(20):
        name = pick(rng, names["patterns"][poi_type]).format(
            surname=pick(rng, names["surnames"]),
            first=pick(rng, names["first_names"]),
            adjective=pick(rng, names["adjectives"]),
            word=pick(rng, words),
            hood=hood.replace("Outer ", ""),
            city=city,
        )
        if name not in taken:
            return name
    suffix = 2
    while f"{name} {suffix}" in taken:
        suffix += 1
    return f"{name} {suffix}"


def draw_review_stars(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` review stars around a latent POI quality (see module docstring)."""
    quality = float(np.clip(rng.normal(QUALITY_MEAN, QUALITY_SD), 1.3, 4.95))
    return np.clip(np.rint(quality + rng.normal(0.0, REVIEW_STAR_SD, size=n)), 1, 5).astype(int)


def draw_review_count(rng: np.random.Generator) -> int:
    """``MIN_REVIEWS + NegBin(r, p)`` with mean ``MEAN_REVIEWS - MIN_REVIEWS``, capped."""
    extra_mean = MEAN_REVIEWS - MIN_REVIEWS
    p = REVIEW_DISPERSION / (REVIEW_DISPERSION + extra_mean)
    return int(min(MAX_REVIEWS, MIN_REVIEWS + rng.negative_binomial(REVIEW_DISPERSION, p)))


def _date(rng: np.random.Generator) -> str:
    lo, hi = (d.timestamp() for d in DATE_RANGE)
    stamp = datetime.fromtimestamp(int(lo + rng.random() * (hi - lo)), tz=UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S")


def make_poi(
    seed: int, city: str, poi_type: str, index: int, taken: set[str], used: set[str] | None = None
) -> tuple[POI, list[Review]]:
    """One POI and its reviews, determined by ``(seed, city, poi_type, index)`` and the sentences
    ``used`` so far in the KB (review text only: it never repeats a used sentence or text)."""
    rng = _rng(seed, city, poi_type, index)
    business_id = stable_id(seed, city, poi_type, index)
    lat, lon, hood = sample_location(rng, city)
    attributes, price = draw_facets(rng, poi_type)
    categories = draw_categories(rng, poi_type, attributes["style"])
    name = draw_name(_rng(seed, city, poi_type, index, "name"), poi_type, attributes["style"], city, hood, taken)
    taken.add(name)
    n = draw_review_count(rng)
    stars = draw_review_stars(rng, n)
    allowed = _data("poi_profiles.yaml")[poi_type]["features"]
    absent = sorted(set(allowed) - set(attributes["features"]))
    slots = assign_mentions(rng, poi_mentions(attributes, price), n)
    text_rng = _rng(seed, city, poi_type, index, "text")
    voice = draw_voice(text_rng, name, hood, city, poi_type, attributes["style"], _data("names.yaml")["first_names"])
    used = set() if used is None else used
    texts = [
        write_review(text_rng, voice, int(stars[j]), slots[j], absent, attributes["noise"], used) for j in range(n)
    ]
    reviews = [
        Review(
            review_id=stable_id(business_id, j),
            business_id=business_id,
            stars=int(stars[j]),
            text=texts[j],
            date=_date(rng),
        )
        for j in range(n)
    ]
    street = pick(rng, city_table()[city]["streets"])
    poi = POI(
        business_id=business_id,
        name=name,
        address=f"{int(rng.integers(100, 5000))} {street}",
        city=city,
        state=city_table()[city]["state"],
        latitude=lat,
        longitude=lon,
        poi_type=poi_type,
        categories=categories,
        stars=float(np.round(stars.mean() * 2) / 2),
        review_count=n,
        price=price,
        attributes={**attributes, "neighbourhood": hood},
    )
    return poi, reviews


def build_synthetic(per_cell: int = 100, seed: int = DEFAULT_SEED) -> tuple[list[POI], list[Review], dict[str, Any]]:
    """All POIs and reviews of the synthetic KB plus the manifest's source fields."""
    if per_cell < 1:
        raise ValueError(f"--per-cell must be >= 1, got {per_cell}")
    pois: list[POI] = []
    reviews: list[Review] = []
    taken: set[str] = set()
    used: set[str] = set()  # every sentence and review text so far: none repeats in the KB
    for city in CITIES:
        for poi_type in POI_TYPES:
            for index in range(per_cell):
                poi, rs = make_poi(seed, city, poi_type, index, taken, used)
                pois.append(poi)
                reviews.extend(rs)
    manifest = {
        "source": "synthetic",
        "seed": seed,
        "parameters": {"per_cell": per_cell, "generator": GENERATOR_VERSION},
    }
    return pois, reviews, manifest
