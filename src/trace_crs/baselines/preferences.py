"""Preferences stated in the user turns, detected with the public facet lexicon
(:func:`trace_crs.kb.lexicon.find_facets`) and the public price vocabulary
(:func:`trace_crs.kb.price.price_ceiling`) — the structured side of Knowledge-Enhanced and the
attribute ranker of Hybrid-RRF (paper Appendix F, Table 8 "S+KB").

Single-valued facets (``style``, ``noise``, the price ceiling) take the *last* mention over
the user turns in order, so a refinement ("too loud — somewhere quiet") overrides the earlier
word; list facets (``ambience``, ``features``) take every value mentioned.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.price import price_ceiling
from trace_crs.kb.schema import POI


@dataclass(frozen=True)
class Stated:
    style: str | None = None
    noise: str | None = None
    price_max: int | None = None
    ambience: tuple[str, ...] = field(default_factory=tuple)
    features: tuple[str, ...] = field(default_factory=tuple)

    def constraints(self) -> int:
        """Number of stated constraints."""
        return sum(v is not None for v in (self.style, self.noise, self.price_max)) \
            + len(self.ambience) + len(self.features)


def _last(matches: list[tuple[str, int, int]]) -> str | None:
    return matches[-1][0] if matches else None


FACETS: tuple[str, ...] = ("style", "noise", "ambience", "features")


@lru_cache(maxsize=4096)
def _mentions(text: str) -> tuple[tuple[tuple[str, int, int], ...], ...]:
    """``find_facets`` hits of one user turn for each of ``FACETS`` (memoised: turn k's user
    texts recur in every later turn of the dialogue and in every baseline that reads them)."""
    return tuple(tuple(find_facets(text, facet)) for facet in FACETS)


def stated_preferences(user_texts: Iterable[str]) -> Stated:
    """Facet values mentioned across ``user_texts`` (in turn order)."""
    user_texts = list(user_texts)
    found: dict[str, list[tuple[str, int, int]]] = {f: [] for f in FACETS}
    for text in user_texts:
        for facet, hits in zip(FACETS, _mentions(text)):
            found[facet].extend(hits)
    return Stated(
        style=_last(found["style"]), noise=_last(found["noise"]),
        price_max=price_ceiling(user_texts),
        ambience=tuple(sorted({v for v, _, _ in found["ambience"]})),
        features=tuple(sorted({v for v, _, _ in found["features"]})),
    )


def satisfied(poi: POI, stated: Stated) -> int:
    """How many stated constraints ``poi``'s attributes meet (price: ``price ≤ ceiling``;
    an unknown price or facet never satisfies)."""
    attrs: dict[str, Any] = poi.attributes
    hits = int(stated.style is not None and attrs.get("style") == stated.style)
    hits += int(stated.noise is not None and attrs.get("noise") == stated.noise)
    hits += int(stated.price_max is not None and poi.price is not None and poi.price <= stated.price_max)
    hits += sum(a in (attrs.get("ambience") or []) for a in stated.ambience)
    hits += sum(f in (attrs.get("features") or []) for f in stated.features)
    return hits
