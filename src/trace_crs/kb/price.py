"""The one public price vocabulary (paper §3, Appendix J): price phrases in user text → a
price ceiling in $ signs, used by the price-alignment metric and by every baseline that reads
a budget from the conversation.

``price_ceiling(texts)`` scans the texts in order and returns the ceiling of the *last*
price phrase (a later "actually, something mid-range" overrides an earlier "cheap"), or None.
Matching is case-insensitive on whole words, longest phrase first, so "not too expensive"
($–$$$) is one phrase; "budget" followed by a lodging noun ("a budget hotel") names a hotel
style, not a ceiling, and is skipped.  The map is ``data/price_words.yaml``.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Iterable

import yaml


@lru_cache(maxsize=1)
def price_words() -> dict[str, int]:
    """Every phrase of the vocabulary → its ceiling (1–4)."""
    data = yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/price_words.yaml").read_text())
    return {phrase.lower(): int(level) for level, phrases in data["ceilings"].items() for phrase in phrases}


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    data = yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/price_words.yaml").read_text())
    phrases = sorted(price_words(), key=len, reverse=True)
    skips = {w: "|".join(map(re.escape, after)) for w, after in data.get("not_price_after", {}).items()}
    parts = []
    for p in phrases:
        body = re.escape(p).replace(r"\ ", r"\s+")
        if p in skips:
            body += rf"(?!\s+(?:{skips[p]})\b)"
        parts.append(body)
    return re.compile(r"(?<![\w-])(" + "|".join(parts) + r")(?![\w-])", re.IGNORECASE)


def price_mentions(text: str) -> list[tuple[str, int, int]]:
    """``(phrase, start, end)`` of every price phrase in ``text``, in order."""
    return [(m.group(1), m.start(1), m.end(1)) for m in _pattern().finditer(text)]


def price_ceiling(texts: Iterable[str]) -> int | None:
    """The ceiling of the last price phrase over ``texts`` in order, or None."""
    ceiling = None
    for text in texts:
        found = price_mentions(text)
        if found:
            ceiling = price_words()[" ".join(found[-1][0].lower().split())]
    return ceiling
