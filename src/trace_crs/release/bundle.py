"""A Yelp Open Dataset bundle, read for the POIs a release names (paper §2.1, Appendix D).

The release ships no review text; the importer takes every POI it names and every review of
those POIs from the user's bundle (``yelp_academic_dataset_{business,review}.json``, JSON lines,
streamed), with the KB rules of ``kb/yelp.py`` (city canonicalisation, facets, price, dates,
500-character truncation).  The POI type is the release's (the scenario or card says it), not
re-inferred from categories.  :func:`write_bundle` writes a *synthetic* KB in the bundle format
so that export -> import can be exercised without Yelp data; it refuses a Yelp-built KB (Yelp
text is not ours to redistribute, §2.1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trace_crs.errors import UsageError
from trace_crs.kb.geo import canonical_city
from trace_crs.kb.schema import POI, REVIEW_MAX_CHARS, KBFormatError, Review, check_poi_values
from trace_crs.kb.store import KB, dump_jsonl, iter_jsonl
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE, facets_of, parse_date, parse_price


def _get(rec: Any, name: str, types: tuple[type, ...], path: Path, line: int, nullable: bool = False) -> Any:
    if not isinstance(rec, dict):
        raise KBFormatError(str(path), line, "<record>", "expected a JSON object")
    value = rec.get(name)
    if (value is None and nullable) or (isinstance(value, types) and not isinstance(value, bool)):
        return value
    raise KBFormatError(
        str(path),
        line,
        name,
        "missing" if name not in rec else f"expected {types[0].__name__}, " f"got {type(value).__name__}",
    )


def bundle_paths(yelp_dir: str | Path) -> tuple[Path, Path]:
    """The business and review files of a bundle directory (a missing one: FileNotFoundError, exit 2)."""
    paths = Path(yelp_dir) / BUSINESS_FILE, Path(yelp_dir) / REVIEW_FILE
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(
                f"{p}: Yelp file not found (expected {BUSINESS_FILE} and {REVIEW_FILE} in --yelp-dir)"
            )
    return paths


def read_pois(path: Path, types: dict[str, str]) -> dict[str, POI]:
    """POIs of the businesses in ``types`` (business id -> POI type); others are skipped."""
    out: dict[str, POI] = {}
    for line, rec in iter_jsonl(path):
        bid = _get(rec, "business_id", (str,), path, line)
        if bid not in types:
            continue
        if bid in out:
            raise KBFormatError(str(path), line, "business_id", f"duplicate {bid!r}")
        raw_city = _get(rec, "city", (str,), path, line)
        city = canonical_city(raw_city)
        if city is None:
            raise KBFormatError(str(path), line, "city", f"{raw_city!r} is not one of the 8 paper cities")
        categories = [
            c.strip() for c in (_get(rec, "categories", (str,), path, line, True) or "").split(",") if c.strip()
        ]
        raw = _get(rec, "attributes", (dict,), path, line, True) or {}
        out[bid] = check_poi_values(
            POI(
                business_id=bid,
                name=_get(rec, "name", (str,), path, line),
                address=_get(rec, "address", (str,), path, line, True) or "",
                city=city,
                state=_get(rec, "state", (str,), path, line),
                latitude=float(_get(rec, "latitude", (int, float), path, line)),
                longitude=float(_get(rec, "longitude", (int, float), path, line)),
                poi_type=types[bid],
                categories=categories,
                stars=float(_get(rec, "stars", (int, float), path, line)),
                review_count=_get(rec, "review_count", (int,), path, line),
                price=parse_price(raw),
                attributes={**facets_of(types[bid], categories, raw), "yelp": raw},
            ),
            str(path),
            line,
        )
    return out


def read_reviews(path: Path, business_ids: set[str]) -> dict[str, Review]:
    """Every review of ``business_ids``, text truncated as the KB keeps it (Appendix D)."""
    out: dict[str, Review] = {}
    for line, rec in iter_jsonl(path):
        bid = _get(rec, "business_id", (str,), path, line)
        if bid not in business_ids:
            continue
        rid = _get(rec, "review_id", (str,), path, line)
        if rid in out:
            raise KBFormatError(str(path), line, "review_id", f"duplicate {rid!r}")
        stars = _get(rec, "stars", (int, float), path, line)
        if stars != int(stars) or not 1 <= stars <= 5:
            raise KBFormatError(str(path), line, "stars", f"expected an integer 1..5, got {stars!r}")
        out[rid] = Review(
            review_id=rid,
            business_id=bid,
            stars=int(stars),
            text=_get(rec, "text", (str,), path, line)[:REVIEW_MAX_CHARS],
            date=parse_date(rec.get("date"), str(path), line),
        )
    return out


def write_bundle(kb: KB, directory: str | Path) -> list[Path]:
    """A synthetic KB as a Yelp-format bundle (facets are not re-encoded as Yelp attributes:
    an imported copy keeps POIs, reviews, coordinates, stars and categories, not facets)."""
    directory = Path(directory)
    business, reviews = bundle_records(kb)
    dump_jsonl(business, directory / BUSINESS_FILE)
    dump_jsonl(reviews, directory / REVIEW_FILE)
    return [directory / BUSINESS_FILE, directory / REVIEW_FILE]


def bundle_records(kb: KB) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(business records, review records)`` of a synthetic KB in the bundle format
    (:func:`write_bundle`; the exporter writes them in its own commit).  A Yelp-built KB is a
    UsageError: Yelp text is not ours to redistribute (§2.1)."""
    if kb.manifest.get("source") == "yelp":
        raise UsageError("refusing to write a Yelp-built KB as a bundle: Yelp text is not redistributable (§2.1)")
    business = [
        {
            "business_id": p.business_id,
            "name": p.name,
            "address": p.address,
            "city": p.city,
            "state": p.state,
            "postal_code": "",
            "latitude": p.latitude,
            "longitude": p.longitude,
            "stars": p.stars,
            "review_count": p.review_count,
            "is_open": 1,
            "attributes": {"RestaurantsPriceRange2": str(p.price)} if p.price else None,
            "categories": ", ".join(p.categories),
            "hours": None,
        }
        for p in sorted(kb.pois.values(), key=lambda p: p.business_id)
    ]
    reviews = [
        {
            "review_id": r.review_id,
            "user_id": "synthetic",
            "business_id": r.business_id,
            "stars": float(r.stars),
            "useful": 0,
            "funny": 0,
            "cool": 0,
            "text": r.text,
            "date": r.date.replace("T", " "),
        }
        for r in sorted(kb.reviews.values(), key=lambda r: r.review_id)
    ]
    return business, reviews


def load_json(path: str | Path) -> Any:
    """A whole JSON file (:func:`load_json_text` without the text)."""
    return load_json_text(path)[0]


def load_json_text(path: str | Path) -> tuple[Any, str]:
    """``(data, text)`` of a whole JSON file.  Malformed JSON, JSON nested deeper than
    :data:`trace_crs.release.records.MAX_DEPTH` levels (or too deep for the parser) and a string
    with a lone surrogate escape are a :class:`KBFormatError` naming the file (exit 3)."""
    from trace_crs.release.locate import line_of
    from trace_crs.release.records import MAX_DEPTH, bad_value

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: release file not found")
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KBFormatError(
            str(path), exc.lineno, "<json>", f"malformed JSON: {exc.msg} (column {exc.colno})"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise KBFormatError(str(path), None, "<json>", f"malformed JSON: {exc}") from None
    except RecursionError:
        raise KBFormatError(str(path), None, "<json>", f"nested deeper than {MAX_DEPTH} levels") from None
    bad = bad_value(data)
    if bad is not None:
        problem = f"nested deeper than {MAX_DEPTH} levels" if bad[1] == "deep" else "a lone UTF-16 surrogate escape"
        raise KBFormatError(str(path), line_of(text, bad[0]), bad[0], problem)
    return data, text
