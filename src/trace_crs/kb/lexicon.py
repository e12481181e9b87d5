"""The facet lexicon (``data/facet_lexicon.yaml``): keywords that express each facet value.

One place for the words; the review writer, the dialogue simulator and the attribute-aware
baselines all read it through :func:`facet_lexicon` and match with :func:`find_facets`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources

import yaml

from trace_crs.kb.price import price_mentions


@lru_cache(maxsize=1)
def facet_lexicon() -> dict[str, dict[str, tuple[str, ...]]]:
    """``{facet: {value: (keyword, ...)}}`` for facets style, noise, ambience, features (prices: kb.price)."""
    raw = yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/facet_lexicon.yaml").read_text())
    return {facet: {str(value): tuple(words) for value, words in values.items()} for facet, values in raw.items()}


@cache
def _pattern(facet: str) -> re.Pattern[str]:
    words = sorted({w for ws in facet_lexicon()[facet].values() for w in ws}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.IGNORECASE)


def find_facets(text: str, facet: str) -> list[tuple[str, int, int]]:
    """All ``(value, start, end)`` keyword matches of one facet in ``text`` (whole words);
    for ``facet="price"`` the value is the price ceiling of :mod:`trace_crs.kb.price`, as text."""
    if facet == "price":
        return [(str(m.level), m.start, m.end) for m in price_mentions(text)]
    by_word = _by_word(facet)
    return [(by_word[m.group(1).lower()], m.start(), m.end()) for m in _pattern(facet).finditer(text)]


@cache
def _by_word(facet: str) -> dict[str, str]:
    return {w.lower(): value for value, ws in facet_lexicon()[facet].items() for w in ws}
