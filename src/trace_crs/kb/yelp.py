"""Build the Trace KB from a user-supplied Yelp Open Dataset bundle (paper §2.1, Appendix D).

Inputs (JSON lines, streamed; the real files are GBs): ``yelp_academic_dataset_business.json``
and ``yelp_academic_dataset_review.json`` in ``--yelp-dir``.  Three passes: businesses →
candidates; reviews → count per candidate; reviews → text of the sampled POIs only.

Rules
-----
* City: :func:`kb.geo.canonical_city` (case, whitespace, "St."/"St"/"Saint"); only the
  8 paper cities are kept, other cities are counted as ``skipped.business.other_city``.
* Type, first rule that matches the business's categories wins:
  hotel if any of ``HOTEL_CATEGORIES``; restaurant if ``"Restaurants"``; attraction if any
  of ``ATTRACTION_CATEGORIES``; otherwise counted as ``skipped.business.not_tourism``.
* Eligible: ≥ ``MIN_REVIEWS`` of its reviews present in the review file.
* Sampling: up to ``per_cell`` POIs per city × type, rating-stratified (star bins
  ``<2.5, 2.5–3.5, 3.5–4.5, ≥4.5``; quotas proportional to bin sizes by largest remainder;
  seeded draw without replacement within bins).  Shortfalls are reported, never fatal.
* Review text is truncated to 500 characters; dates ``"YYYY-MM-DD HH:MM:SS"`` or epoch
  milliseconds become ISO-8601 (UTC).  Price = ``attributes.RestaurantsPriceRange2``
  (string; ``'None'``/missing → null).
* Facets (``kb/facets.py``): style from the first category listed under a style in
  ``data/poi_profiles.yaml``; noise from NoiseLevel (very_loud → loud); ambience from the
  Ambience dict (intimate → romantic, upscale → classy, hipster → trendy); features from
  BusinessParking (any car option), WiFi (free/paid), OutdoorSeating, WheelchairAccessible,
  DogsAllowed, GoodForKids, RestaurantsReservations, GoodForMeal.latenight and a "Vegan"
  category.  The raw Yelp attributes are kept under ``attributes["yelp"]``.

Malformed JSON or a field of the wrong type raises :class:`KBFormatError` (file, line, field).
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.kb.geo import CITIES, canonical_city
from trace_crs.kb.schema import POI, POI_TYPES, REVIEW_MAX_CHARS, KBFormatError, Review, check_poi_values
from trace_crs.kb.store import iter_jsonl
from trace_crs.kb.synthetic import poi_profiles

BUSINESS_FILE, REVIEW_FILE = "yelp_academic_dataset_business.json", "yelp_academic_dataset_review.json"
MIN_REVIEWS = 3
HOTEL_CATEGORIES = frozenset({"Hotels", "Bed & Breakfast", "Resorts", "Hostels", "Guest Houses", "Motels"})
ATTRACTION_CATEGORIES = frozenset(
    {
        "Museums",
        "Art Museums",
        "Art Galleries",
        "Parks",
        "Landmarks & Historical Buildings",
        "Tours",
        "Walking Tours",
        "Boat Tours",
        "Zoos",
        "Aquariums",
        "Botanical Gardens",
        "Performing Arts",
        "Music Venues",
        "Stadiums & Arenas",
        "Amusement Parks",
        "Arts & Entertainment",
        "Public Art",
    }
)
STAR_BIN_EDGES = (2.5, 3.5, 4.5)
NOISE = {"quiet": "quiet", "average": "average", "loud": "loud", "very_loud": "loud"}
AMBIENCE = {
    "romantic": "romantic",
    "intimate": "romantic",
    "classy": "classy",
    "upscale": "classy",
    "casual": "casual",
    "trendy": "trendy",
    "hipster": "trendy",
    "touristy": "touristy",
}
FLAG_FEATURES = {
    "OutdoorSeating": "outdoor_seating",
    "WheelchairAccessible": "wheelchair_accessible",
    "DogsAllowed": "pet_friendly",
    "GoodForKids": "family_friendly",
    "RestaurantsReservations": "reservations",
}


def _literal(value: Any) -> Any:
    """Yelp stores attribute values as Python literals in strings (``"u'free'"``, ``"{...}"``)."""
    if not isinstance(value, str):
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def poi_type_of(categories: list[str]) -> str | None:
    """The POI type by the module's rules (hotel > restaurant > attraction), else None."""
    cats = set(categories)
    if cats & HOTEL_CATEGORIES:
        return "hotel"
    if "Restaurants" in cats:
        return "restaurant"
    return "attraction" if cats & ATTRACTION_CATEGORIES else None


def facets_of(poi_type: str, categories: list[str], raw: dict[str, Any]) -> dict[str, Any]:
    """Canonical facets (``kb/facets.py``) from Yelp categories and attributes."""
    style_of = {c: s for s, prof in sorted(poi_profiles()[poi_type]["styles"].items()) for c in prof["categories"]}
    style = next((style_of[c] for c in categories if c in style_of), None)
    noise = NOISE.get(str(_literal(raw.get("NoiseLevel"))))
    amb = _literal(raw.get("Ambience"))
    ambience = (
        sorted({AMBIENCE[k] for k, v in amb.items() if v is True and k in AMBIENCE}) if isinstance(amb, dict) else []
    )
    features = {f for key, f in FLAG_FEATURES.items() if _literal(raw.get(key)) is True}
    parking = _literal(raw.get("BusinessParking"))
    if isinstance(parking, dict) and any(v is True for v in parking.values()):
        features.add("parking")
    if str(_literal(raw.get("WiFi"))) in ("free", "paid"):
        features.add("wifi")
    meal = _literal(raw.get("GoodForMeal"))
    if isinstance(meal, dict) and meal.get("latenight") is True:
        features.add("late_hours")
    if any("Vegan" in c for c in categories):
        features.add("vegan_options")
    return {"style": style, "noise": noise, "ambience": ambience, "features": sorted(features)}


def parse_price(raw: dict[str, Any]) -> int | None:
    """``RestaurantsPriceRange2`` as 1–4, or None when missing / ``'None'`` / out of range."""
    value = _literal(raw.get("RestaurantsPriceRange2"))
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4 else None


def parse_date(value: Any, path: str, line: int) -> str:
    """Yelp date (``"YYYY-MM-DD HH:MM:SS"`` or epoch ms) → ISO-8601 ``YYYY-MM-DDTHH:MM:SS`` (UTC)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if isinstance(value, str):
        try:
            return datetime.strptime(value.strip(), "%Y-%m-%d %H:%M:%S").strftime("%Y-%m-%dT%H:%M:%S")
        except ValueError:
            pass
    raise KBFormatError(path, line, "date", f"expected 'YYYY-MM-DD HH:MM:SS' or epoch ms, got {value!r:.40}")


def _field(rec: dict, name: str, types: tuple[type, ...], path: str, line: int, nullable: bool = False) -> Any:
    if not isinstance(rec, dict):
        raise KBFormatError(path, line, "<record>", "expected a JSON object")
    if name not in rec:
        raise KBFormatError(path, line, name, "missing")
    value = rec[name]
    if (value is None and nullable) or (isinstance(value, types) and not isinstance(value, bool)):
        return value
    raise KBFormatError(path, line, name, f"expected {'/'.join(t.__name__ for t in types)}, got {type(value).__name__}")


def _candidates(path: Path, skipped: Counter) -> dict[str, POI]:
    """Pass 1: businesses in the 8 cities with a tourism type, as POIs."""
    out: dict[str, POI] = {}
    for line, rec in iter_jsonl(path):
        city = canonical_city(_field(rec, "city", (str,), str(path), line))
        if city is None:
            skipped["other_city"] += 1
            continue
        cats_raw = _field(rec, "categories", (str,), str(path), line, nullable=True) or ""
        categories = [c.strip() for c in cats_raw.split(",") if c.strip()]
        poi_type = poi_type_of(categories)
        if poi_type is None:
            skipped["not_tourism"] += 1
            continue
        raw = _field(rec, "attributes", (dict,), str(path), line, nullable=True) or {}
        bid = _field(rec, "business_id", (str,), str(path), line)
        if not bid.strip():
            raise KBFormatError(str(path), line, "business_id", "empty")
        if bid in out:
            raise KBFormatError(str(path), line, "business_id", f"duplicate {bid!r} (first seen earlier in the file)")
        out[bid] = POI(
            business_id=bid,
            name=_field(rec, "name", (str,), str(path), line),
            address=_field(rec, "address", (str,), str(path), line, nullable=True) or "",
            city=city,
            state=_field(rec, "state", (str,), str(path), line),
            latitude=float(_field(rec, "latitude", (int, float), str(path), line)),
            longitude=float(_field(rec, "longitude", (int, float), str(path), line)),
            poi_type=poi_type,
            categories=categories,
            stars=float(_field(rec, "stars", (int, float), str(path), line)),
            review_count=_field(rec, "review_count", (int,), str(path), line),
            price=parse_price(raw),
            attributes={**facets_of(poi_type, categories, raw), "yelp": raw},
        )
        check_poi_values(out[bid], str(path), line)
    return out


def stratified_sample(ids: list[str], stars: list[float], k: int, rng: np.random.Generator) -> list[str]:
    """Up to ``k`` ids, rating-stratified with largest-remainder proportional quotas."""
    if len(ids) <= k:
        return sorted(ids)
    bins = np.digitize(stars, STAR_BIN_EDGES)
    groups = [sorted(i for i, b in zip(ids, bins, strict=False) if b == g) for g in range(len(STAR_BIN_EDGES) + 1)]
    exact = np.array([len(g) for g in groups], dtype=float) * k / len(ids)
    quota = np.floor(exact).astype(int)
    for g in np.argsort(-(exact - quota), kind="stable")[: k - quota.sum()]:
        quota[g] += 1
    picked = [g[i] for g, q in zip(groups, quota, strict=False) for i in rng.choice(len(g), size=q, replace=False)]
    return sorted(picked)


def build_yelp(
    yelp_dir: str | Path, per_cell: int = 100, seed: int = DEFAULT_SEED
) -> tuple[list[POI], list[Review], dict[str, Any]]:
    """POIs, reviews and manifest fields of a Yelp-derived KB (see module docstring)."""
    yelp_dir = Path(yelp_dir)
    bpath, rpath = yelp_dir / BUSINESS_FILE, yelp_dir / REVIEW_FILE
    for p in (bpath, rpath):
        if not p.is_file():
            raise FileNotFoundError(
                f"{p}: Yelp file not found (expected {BUSINESS_FILE} and {REVIEW_FILE} in --yelp-dir)"
            )
    skipped_b: Counter = Counter()
    candidates = _candidates(bpath, skipped_b)
    present: Counter = Counter()
    for line, rec in iter_jsonl(rpath):
        bid = _field(rec, "business_id", (str,), str(rpath), line)
        if bid in candidates:
            present[bid] += 1
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    for bid, poi in candidates.items():
        if present[bid] >= MIN_REVIEWS:
            cells[(poi.city, poi.poi_type)].append(bid)
        else:
            skipped_b["too_few_reviews"] += 1
    kept: set[str] = set()
    shortfalls: dict[str, int] = {}
    for ci, city in enumerate(CITIES):
        for ti, poi_type in enumerate(POI_TYPES):
            ids = sorted(cells.get((city, poi_type), []))
            rng = np.random.default_rng([seed, ci, ti])
            kept.update(stratified_sample(ids, [candidates[i].stars for i in ids], per_cell, rng))
            if len(ids) < per_cell:
                shortfalls[f"{city}/{poi_type}"] = per_cell - len(ids)
    skipped_b["not_sampled"] = sum(len(v) for v in cells.values()) - len(kept)
    reviews: list[Review] = []
    skipped_r: Counter = Counter()
    seen_reviews: set[str] = set()
    for line, rec in iter_jsonl(rpath):
        bid = _field(rec, "business_id", (str,), str(rpath), line)
        if bid not in kept:
            skipped_r["other_business"] += 1
            continue
        stars = _field(rec, "stars", (int, float), str(rpath), line)
        if stars != int(stars) or not 1 <= stars <= 5:
            raise KBFormatError(str(rpath), line, "stars", f"expected an integer 1..5, got {stars!r}")
        text = _field(rec, "text", (str,), str(rpath), line)
        rid = _field(rec, "review_id", (str,), str(rpath), line)
        if not rid.strip() or rid in seen_reviews:
            raise KBFormatError(str(rpath), line, "review_id", "empty" if not rid.strip() else f"duplicate {rid!r}")
        seen_reviews.add(rid)
        reviews.append(
            Review(
                review_id=rid,
                business_id=bid,
                stars=int(stars),
                text=text[:REVIEW_MAX_CHARS],
                date=parse_date(rec.get("date"), str(rpath), line),
            )
        )
    if not kept:
        raise KBFormatError(
            str(bpath),
            None,
            "<file>",
            f"no business of the 8 cities with a tourism type and at least "
            f"{MIN_REVIEWS} reviews ({sum(skipped_b.values())} lines skipped: {dict(skipped_b)})",
        )
    pois = [candidates[b] for b in sorted(kept)]
    manifest = {
        "source": "yelp",
        "seed": seed,
        "parameters": {
            "per_cell": per_cell,
            "min_reviews": MIN_REVIEWS,
            "inputs": {p.name: p.stat().st_size for p in (bpath, rpath)},
        },
        "skipped": {"business_lines": dict(sorted(skipped_b.items())), "review_lines": dict(sorted(skipped_r.items()))},
        "shortfalls": shortfalls,
    }
    return pois, reviews, manifest
