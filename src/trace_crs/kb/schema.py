"""POI and Review records of the Trace knowledge base (paper §2.1, Appendix D).

Both sources (the embedded synthetic KB and a user's Yelp bundle) produce exactly these
records.  Parsing is strict: a wrong type or a missing field raises :class:`KBFormatError`
naming the file, the line and the field, so that nothing is silently dropped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from trace_crs.errors import DataError
from trace_crs.kb.geo import CITIES  # the 8 paper cities (ARCHITECTURE §1)

POI_TYPES: tuple[str, ...] = ("restaurant", "hotel", "attraction")
REVIEW_MAX_CHARS = 500


class KBFormatError(DataError):
    """A KB record is malformed; the message names file, line and field (exit 3)."""

    def __init__(self, path: str, line: int | None, field_name: str, problem: str):
        where = f"{path}:{line}" if line is not None else path
        ValueError.__init__(self, f"{where}: field '{field_name}': {problem}")
        self.path, self.line, self.field_name = path, line, field_name
        self.file, self.field, self.problem = path, field_name, problem


class MissingInputError(KBFormatError, FileNotFoundError):
    """An input file that does not exist (a usage error: exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class POI:
    business_id: str
    name: str
    address: str
    city: str
    state: str
    latitude: float
    longitude: float
    poi_type: str
    categories: list[str]
    stars: float
    review_count: int
    price: int | None
    attributes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Review:
    review_id: str
    business_id: str
    stars: int
    text: str
    date: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bad_id(value: str) -> bool:
    """Whether an id is blank after Unicode normalisation (NFKC) or holds invisible format or
    control characters (a zero-width space makes "P1\u200b" look like "P1" but not match it)."""
    return not unicodedata.normalize("NFKC", value).strip() or any(
        unicodedata.category(c) in ("Cf", "Cc") for c in value
    )


def _id(rec: dict, name: str, path: str, line: int | None) -> str:
    value = _typed(rec, name, str, path, line)
    if bad_id(value):
        raise KBFormatError(path, line, name, f"{value!r:.60} is blank or holds invisible/control characters")
    return value


def _typed(
    rec: dict, name: str, types: type | tuple[type, ...], path: str, line: int | None, nullable: bool = False
) -> Any:
    if name not in rec:
        raise KBFormatError(path, line, name, "missing")
    value = rec[name]
    if value is None and nullable:
        return None
    # bool is an int subclass: never accept it where a number is expected
    if isinstance(value, bool) or not isinstance(value, types):
        want = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
        raise KBFormatError(path, line, name, f"expected {want}, got {type(value).__name__} {value!r:.60}")
    return value


def poi_from_dict(rec: dict, path: str = "<memory>", line: int | None = None) -> POI:
    """Validate one ``pois.jsonl`` record and build a :class:`POI`."""
    if not isinstance(rec, dict):
        raise KBFormatError(path, line, "<record>", "expected a JSON object")
    poi_type = _typed(rec, "poi_type", str, path, line)
    if poi_type not in POI_TYPES:
        raise KBFormatError(path, line, "poi_type", f"{poi_type!r} not in {POI_TYPES}")
    categories = _typed(rec, "categories", list, path, line)
    if not all(isinstance(c, str) for c in categories):
        raise KBFormatError(path, line, "categories", "expected a list of strings")
    price = _typed(rec, "price", int, path, line, nullable=True)
    if price is not None and not 1 <= price <= 4:
        raise KBFormatError(path, line, "price", f"{price} not in 1..4")
    lat = float(_typed(rec, "latitude", (int, float), path, line))
    lon = float(_typed(rec, "longitude", (int, float), path, line))
    city = _typed(rec, "city", str, path, line)
    if city not in CITIES:
        raise KBFormatError(path, line, "city", f"unknown city {city!r}; expected one of {CITIES}")
    return check_poi_values(
        POI(
            business_id=_id(rec, "business_id", path, line),
            name=_typed(rec, "name", str, path, line),
            address=_typed(rec, "address", str, path, line),
            city=city,
            state=_typed(rec, "state", str, path, line),
            latitude=lat,
            longitude=lon,
            poi_type=poi_type,
            categories=list(categories),
            stars=float(_typed(rec, "stars", (int, float), path, line)),
            review_count=_typed(rec, "review_count", int, path, line),
            price=price,
            attributes=dict(_typed(rec, "attributes", dict, path, line)),
        ),
        path,
        line,
    )


def check_poi_values(poi: POI, path: str, line: int | None) -> POI:
    """Range checks every POI source shares: a non-empty id, finite coordinates on Earth,
    stars in [0, 5], a non-negative review count (NaN and ±Infinity fail every range test)."""
    if bad_id(poi.business_id):
        raise KBFormatError(
            path, line, "business_id", f"{poi.business_id!r:.60} is blank or holds invisible characters"
        )
    if not (-90 <= poi.latitude <= 90):
        raise KBFormatError(path, line, "latitude", f"{poi.latitude!r} is not a latitude in [-90, 90]")
    if not (-180 <= poi.longitude <= 180):
        raise KBFormatError(path, line, "longitude", f"{poi.longitude!r} is not a longitude in [-180, 180]")
    if not (0 <= poi.stars <= 5):
        raise KBFormatError(path, line, "stars", f"{poi.stars!r} not in [0, 5]")
    if poi.review_count < 0:
        raise KBFormatError(path, line, "review_count", f"{poi.review_count} is negative")
    return poi


def review_from_dict(rec: dict, path: str = "<memory>", line: int | None = None) -> Review:
    """Validate one ``reviews.jsonl`` record and build a :class:`Review`."""
    if not isinstance(rec, dict):
        raise KBFormatError(path, line, "<record>", "expected a JSON object")
    text = _typed(rec, "text", str, path, line)
    if len(text) > REVIEW_MAX_CHARS:
        raise KBFormatError(path, line, "text", f"{len(text)} chars > {REVIEW_MAX_CHARS}")
    stars = _typed(rec, "stars", int, path, line)
    if not 1 <= stars <= 5:
        raise KBFormatError(path, line, "stars", f"{stars} not in 1..5")
    return Review(
        review_id=_id(rec, "review_id", path, line),
        business_id=_id(rec, "business_id", path, line),
        stars=stars,
        text=text,
        date=_typed(rec, "date", str, path, line),
    )
