"""How often real reviews mention a business's facets: the calibration of the synthetic
review writer against a Yelp bundle (issue "benchmark validity"; paper §2.1, Appendix D).

For every facet value the Yelp loader derives from business attributes (``kb.yelp.facets_of``:
noise from ``NoiseLevel``, ambience from ``Ambience``, features from ``OutdoorSeating``,
``WiFi``, ``DogsAllowed``, ``GoodForKids``, ``BusinessParking``, …), the per-review mention rate
is the share of reviews of businesses *with* that value whose text mentions it by a word of
the public lexicon (``kb.lexicon.find_facets``).  Real reviews rarely name amenities (a few
percent of reviews): the synthetic writer uses these rates, so a POI's facet may not show in
any of its reviews, as in real data.  Only counts and rates are produced — never review text.

A line that is not an object, or whose ``business_id`` / ``text`` is missing or not a string, is
a :class:`KBFormatError` naming file, line and field (a review without text would otherwise
count as a review of length 0); a bundle with no review to count is an error, never an empty
or NaN result.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from trace_crs.errors import UsageError
from trace_crs.kb.facets import LIST_FACETS
from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.schema import KBFormatError
from trace_crs.kb.store import iter_jsonl
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE, _field, _literal, facets_of, poi_type_of


def _values(facets: dict[str, Any]) -> set[tuple[str, str]]:
    out = {("noise", facets["noise"])} if facets.get("noise") else set()
    return out | {(f, v) for f in LIST_FACETS for v in facets.get(f) or []}


def yelp_mention_rates(yelp_dir: str | Path, min_reviews: int = 20) -> dict[str, Any]:
    """``{"<facet>:<value>": {"reviews", "mentions", "rate"}}`` for facet values seen on at least
    ``min_reviews`` reviews, and ``"pooled"`` over all of them."""
    yelp_dir = Path(yelp_dir)
    has: dict[str, set[tuple[str, str]]] = {}
    bpath, rpath = yelp_dir / BUSINESS_FILE, yelp_dir / REVIEW_FILE
    for line, rec in iter_jsonl(bpath):
        bid = _field(rec, "business_id", (str,), str(bpath), line)
        cats = [c.strip() for c in (_field(rec, "categories", (str,), str(bpath), line, True) or "").split(",")]
        cats = [c for c in cats if c]
        poi_type = poi_type_of(cats)
        raw = _literal(rec.get("attributes")) or {}
        if poi_type and isinstance(raw, dict):
            values = _values(facets_of(poi_type, cats, raw))
            if values:
                has[bid] = values
    reviews: Counter = Counter()
    mentions: Counter = Counter()
    for line, rec in iter_jsonl(rpath):
        values = has.get(_field(rec, "business_id", (str,), str(rpath), line)) or set()
        text = _field(rec, "text", (str,), str(rpath), line)
        if not values:
            continue
        said = {(f, v) for f in ("noise", *LIST_FACETS) for v, _, _ in find_facets(text, f)}
        for value in values:
            reviews[value] += 1
            mentions[value] += value in said
    if not reviews:
        raise KBFormatError(
            str(rpath),
            None,
            "<file>",
            f"no review of a business whose attributes give a facet value ({len(has)} such businesses in {bpath.name})",
        )
    kept = {v: n for v, n in reviews.items() if n >= min_reviews}
    if not kept:
        raise UsageError(
            f"{rpath}: no facet value is seen on at least --min-reviews {min_reviews} reviews "
            f"(the most: {max(reviews.values())}); lower --min-reviews"
        )
    out: dict[str, Any] = {
        f"{f}:{v}": {"reviews": n, "mentions": mentions[(f, v)], "rate": mentions[(f, v)] / n}
        for (f, v), n in sorted(kept.items())
    }
    n_all, m_all = sum(kept.values()), sum(mentions[v] for v in kept)
    out["pooled"] = {"reviews": n_all, "mentions": m_all, "rate": m_all / n_all}
    return out


def yelp_length_quantiles(yelp_dir: str | Path, n_quantiles: int = 101, max_chars: int = 500) -> dict[str, Any]:
    """Quantiles (``0 … 1`` in ``n_quantiles`` steps) of review length in characters after
    truncation at ``max_chars`` (paper App. D), with ``n`` and the mean: the length profile the
    synthetic writer draws from (``data/review_lengths.yaml``).  Aggregates only, never text."""
    import numpy as np

    path = str(Path(yelp_dir) / REVIEW_FILE)
    lengths = np.array([len(_field(rec, "text", (str,), path, line)[:max_chars]) for line, rec in iter_jsonl(path)])
    if lengths.size == 0:
        raise KBFormatError(path, None, "<file>", "no reviews")
    qs = np.quantile(lengths, np.linspace(0.0, 1.0, n_quantiles))
    return {
        "n": int(lengths.size),
        "mean": round(float(lengths.mean()), 2),
        "max_chars": max_chars,
        "quantiles": [round(float(q), 1) for q in qs],
    }
