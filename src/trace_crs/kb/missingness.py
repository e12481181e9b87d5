"""Attribute missingness of a real Yelp KB, measured on a Yelp bundle and applied to a built KB.

Why: the synthetic KB knows every facet of every POI (style, price, noise, ambience, features
are complete and are exactly the generator's facets), while a KB built from Yelp (paper §2.1,
App. D; our ``kb/yelp.py`` rules) knows a facet only where the business's Yelp record carries
the attribute it is read from.  An attribute-matching baseline (Knowledge-Enh., Table 8
"attribute-constraint matching, S+KB") is favoured by a complete KB; this module lets the
Deviations page test that cause.

* :func:`measure_coverage` reads ``yelp_academic_dataset_business.json`` and counts, per POI type
  (``kb.yelp.poi_type_of``), the businesses on which each facet is *known* under ``kb/yelp.py``'s
  rules: style = a category maps to a style; price = ``RestaurantsPriceRange2`` parses; noise =
  ``NoiseLevel`` maps; ambience = an ``Ambience`` dict is present; each feature = its source
  attribute is present (``OutdoorSeating``… with a true/false value, ``BusinessParking`` /
  ``GoodForMeal`` as a dict, ``WiFi``).  Features with no Yelp source attribute
  (``FEATURES_WITHOUT_SOURCE``: pool, gym, …; vegan_options, which kb/yelp.py reads from a "Vegan"
  category, has no attribute whose absence could be told from "no") get coverage 0.
  Only these aggregate counts are stored (``data/attribute_coverage.yaml``), never Yelp text.
* :func:`degrade` returns the POIs with each facet value kept with probability = its coverage
  for the POI's type (independent seeded draws, POIs in ``business_id`` order), else removed
  (style / noise → ``None``, price → ``None``, an ambience or feature value dropped from its list).
  Baselines treat an unknown facet as unmet (``kb.satisfaction``), as they would on Yelp.
  Staleness (a present but wrong value) is not modelled: the sample has no ground truth for it.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import write_text
from trace_crs.kb.facets import FEATURES
from trace_crs.kb.schema import POI, POI_TYPES
from trace_crs.kb.store import iter_jsonl
from trace_crs.kb.yelp import FLAG_FEATURES, _literal, facets_of, parse_price, poi_type_of

COVERAGE_FILE = Path(__file__).with_name("data") / "attribute_coverage.yaml"
SCALAR_FACETS: tuple[str, ...] = ("style", "price", "noise", "ambience")
# feature → the Yelp attribute it is read from (kb/yelp.py); the rest have none.
FEATURE_SOURCES: dict[str, str] = {
    **{f: k for k, f in FLAG_FEATURES.items()},
    "parking": "BusinessParking",
    "wifi": "WiFi",
    "late_hours": "GoodForMeal",
}
FEATURES_WITHOUT_SOURCE: tuple[str, ...] = tuple(f for f in FEATURES if f not in FEATURE_SOURCES)


def _known(poi_type: str, categories: list[str], raw: dict[str, Any]) -> dict[str, bool]:
    """Which facets a Yelp record makes known (see the module docstring)."""
    facets = facets_of(poi_type, categories, raw)
    known = {
        "style": facets["style"] is not None,
        "price": parse_price(raw) is not None,
        "noise": facets["noise"] is not None,
        "ambience": isinstance(_literal(raw.get("Ambience")), dict),
    }
    for feature, key in FEATURE_SOURCES.items():
        value = _literal(raw.get(key))
        known[feature] = (
            isinstance(value, dict)
            if key in ("BusinessParking", "GoodForMeal")
            else (isinstance(value, bool) if key in FLAG_FEATURES else value is not None and str(value) != "None")
        )
    return known


def measure_coverage(business_path: str | Path) -> dict[str, dict[str, int]]:
    """``{poi_type: {"n": businesses, facet or feature: businesses where it is known}}``."""
    counts: dict[str, dict[str, int]] = {t: {"n": 0} for t in POI_TYPES}
    for _, rec in iter_jsonl(business_path):
        categories = [c.strip() for c in (rec.get("categories") or "").split(",") if c.strip()]
        poi_type = poi_type_of(categories)
        if poi_type is None:
            continue
        row = counts[poi_type]
        row["n"] += 1
        for key, is_known in _known(poi_type, categories, rec.get("attributes") or {}).items():
            row[key] = row.get(key, 0) + int(is_known)
    for row in counts.values():
        for key in (*SCALAR_FACETS, *FEATURE_SOURCES):
            row.setdefault(key, 0)
    return counts


@cache
def coverage_counts(path: Path = COVERAGE_FILE) -> dict[str, dict[str, int]]:
    """The stored counts (``counts`` of ``data/attribute_coverage.yaml``)."""
    return yaml.safe_load(path.read_text())["counts"]


def coverage_rates(counts: dict[str, dict[str, int]] | None = None) -> dict[str, dict[str, float]]:
    """Share of businesses with each facet known, per POI type (no business of a type → 1.0:
    nothing measured, nothing removed); features without a Yelp source → 0.0."""
    counts = coverage_counts() if counts is None else counts
    out: dict[str, dict[str, float]] = {}
    for poi_type, row in counts.items():
        n = row["n"]
        rates = {k: (v / n if n else 1.0) for k, v in row.items() if k != "n"}
        out[poi_type] = {**rates, **{f: 0.0 for f in FEATURES_WITHOUT_SOURCE}}
    return out


def degrade(pois: list[POI], rates: dict[str, dict[str, float]] | None = None, seed: int = DEFAULT_SEED) -> list[POI]:
    """``pois`` with facets removed at the rates' missingness (see the module docstring)."""
    rates = coverage_rates() if rates is None else rates
    rng = np.random.default_rng(seed)
    out = []
    for poi in sorted(pois, key=lambda p: p.business_id):
        rate = rates[poi.poi_type]
        attrs = dict(poi.attributes)
        keep = {k: bool(rng.random() < rate[k]) for k in SCALAR_FACETS}
        attrs["style"] = attrs.get("style") if keep["style"] else None
        attrs["noise"] = attrs.get("noise") if keep["noise"] else None
        attrs["ambience"] = list(attrs.get("ambience") or []) if keep["ambience"] else []
        attrs["features"] = [f for f in attrs.get("features") or [] if rng.random() < rate.get(f, 0.0)]
        out.append(dataclasses.replace(poi, attributes=attrs, price=poi.price if keep["price"] else None))
    return out


def write_coverage(business_path: str | Path, out: str | Path = COVERAGE_FILE) -> Path:
    """Measure ``business_path`` and write the counts file (atomically), naming its source."""
    counts = measure_coverage(business_path)
    header = (
        "# Attribute coverage of a Yelp business file (trace_crs.kb.missingness.measure_coverage): per POI\n"
        "# type, the businesses of that type (n) and how many carry each facet under kb/yelp.py's rules.\n"
        "# Aggregate counts only, no Yelp text. Regenerate with kb.missingness.write_coverage(<business.json>).\n"
    )
    body = yaml.safe_dump({"source": Path(business_path).name, "counts": counts}, sort_keys=True)
    return write_text(out, header + body)
