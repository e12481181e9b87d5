"""Preferences stated in the user turns, detected with the public facet lexicon
(:func:`trace_crs.kb.lexicon.find_facets`) and the public price vocabulary
(:func:`trace_crs.kb.price.price_ceiling`) — the structured side of Knowledge-Enhanced and the
attribute ranker of Hybrid-RRF (paper Appendix F, Table 8 "S+KB").

Single-valued facets (``style``, ``noise``, the price ceiling) take the *last* mention over
the user turns in order, so a refinement ("too loud — somewhere quiet") overrides the earlier
word; list facets (``ambience``, ``features``) take every value mentioned.  Whether a POI
meets a stated preference is :func:`trace_crs.kb.satisfaction.satisfies`, the test that
labels gold; :func:`satisfied` counts the met ones (partial satisfaction ranks).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.price import price_ceiling
from trace_crs.kb.satisfaction import Constraint, count_satisfied
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
        return len(self.as_constraints())

    def as_constraints(self) -> list[Constraint]:
        """The stated preferences as ``(facet, value)`` constraints of :mod:`trace_crs.kb.satisfaction`."""
        out: list[Constraint] = [(f, v) for f, v in (("style", self.style), ("noise", self.noise),
                                                     ("price_max", self.price_max)) if v is not None]
        return out + [("ambience", a) for a in self.ambience] + [("features", f) for f in self.features]


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
    """How many stated constraints ``poi`` meets, each tested by the one satisfaction function
    :func:`trace_crs.kb.satisfaction.satisfies` (an unknown price or facet never satisfies)."""
    return count_satisfied(poi, stated.as_constraints())
