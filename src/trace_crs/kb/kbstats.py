"""Table-3-style summary of a KB directory (paper §2.1, Table 3 "Knowledge base (Yelp)").

Reported: POIs (total, per type), reviews (total, mean and min per POI), mean POI stars,
mean review stars, unique categories, cities, price range per type, the share of
same-city POI pairs within 2 km (the spatial scale of §3 Spatial Coherence), and the share
of POI facet values that at least one of the POI's reviews mentions (lexicon keywords).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from trace_crs.kb.geo import haversine_km
from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.review_writer import poi_mentions
from trace_crs.kb.schema import POI, POI_TYPES
from trace_crs.kb.store import KB

WITHIN_KM = 2.0


def cell_counts(pois: Iterable[POI]) -> dict[str, dict[str, int]]:
    """``{city: {poi_type: n}}`` with every type present (0 when empty)."""
    counts = Counter((p.city, p.poi_type) for p in pois)
    return {city: {t: counts.get((city, t), 0) for t in POI_TYPES} for city in sorted({c for c, _ in counts})}


def within_km_fraction(pois: Iterable[POI], km: float = WITHIN_KM) -> float:
    """Share of unordered same-city POI pairs closer than ``km`` (NaN if no pair)."""
    by_city: dict[str, list[POI]] = {}
    for p in pois:
        by_city.setdefault(p.city, []).append(p)
    close = total = 0
    for group in by_city.values():
        lat = np.array([p.latitude for p in group])
        lon = np.array([p.longitude for p in group])
        d = haversine_km(lat[:, None], lon[:, None], lat[None, :], lon[None, :])
        iu = np.triu_indices(len(group), k=1)
        close += int((d[iu] < km).sum())
        total += len(iu[0])
    return close / total if total else float("nan")


def facet_coverage(kb: KB) -> float:
    """Share of (POI, facet value) pairs mentioned by at least one of the POI's reviews."""
    hit = total = 0
    for poi in kb.pois.values():
        wanted = set(poi_mentions(poi.attributes, poi.price))
        found = {
            (f, v) for r in kb.reviews_of(poi.business_id) for f, _ in wanted for v, _, _ in find_facets(r.text, f)
        }
        hit += len(wanted & found)
        total += len(wanted)
    return hit / total if total else float("nan")


def summarize(kb: KB) -> dict[str, Any]:
    """The Table-3 statistics of ``kb`` as a JSON-ready dict."""
    pois = list(kb.pois.values())
    per_poi = [len(kb.reviews_of(p.business_id)) for p in pois]
    prices: dict[str, list[int]] = {
        t: sorted({p.price for p in pois if p.poi_type == t and p.price}) for t in POI_TYPES
    }
    return {
        "pois": len(pois),
        "pois_per_type": {t: sum(p.poi_type == t for p in pois) for t in POI_TYPES},
        "reviews": len(kb.reviews),
        "reviews_per_poi_mean": float(np.mean(per_poi)) if per_poi else float("nan"),
        "reviews_per_poi_min": int(min(per_poi)) if per_poi else 0,
        "stars_mean_poi": float(np.mean([p.stars for p in pois])) if pois else float("nan"),
        "stars_mean_review": float(np.mean([r.stars for r in kb.reviews.values()])) if kb.reviews else float("nan"),
        "unique_categories": len({c for p in pois for c in p.categories}),
        "cities": sorted({p.city for p in pois}),
        "price_range": {t: ("$" * v[0] + "–" + "$" * v[-1]) if v else "n/a" for t, v in prices.items()},
        "within_2km_fraction": within_km_fraction(pois),
        "facet_coverage": facet_coverage(kb),
        "counts": cell_counts(pois),
    }


def format_summary(stats: dict[str, Any]) -> str:
    """Render :func:`summarize` as a two-column text table."""
    per_type = " / ".join(f"{stats['pois_per_type'][t]} {t}" for t in POI_TYPES)
    rows = [
        ("POIs", f"{stats['pois']:,} ({per_type})"),
        (
            "Reviews",
            f"{stats['reviews']:,} (avg. {stats['reviews_per_poi_mean']:.1f}/POI, min {stats['reviews_per_poi_min']})",
        ),
        ("Avg. stars (POI / review)", f"{stats['stars_mean_poi']:.2f} / {stats['stars_mean_review']:.2f}"),
        ("Unique categories", f"{stats['unique_categories']}"),
        ("Cities", f"{len(stats['cities'])} ({', '.join(stats['cities'])})"),
        ("Price range", ", ".join(f"{t} {r}" for t, r in stats["price_range"].items())),
        ("Same-city pairs within 2 km", f"{stats['within_2km_fraction']:.3f}"),
        ("Facet values mentioned in reviews", f"{stats['facet_coverage']:.3f}"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
