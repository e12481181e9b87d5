"""Place names the system knows, masked before the preference reader looks for facet
keywords: "Mae's Curry House isn't what I had in mind" turns a place down, it does not ask for
(or avoid) Indian food, and "The Quiet Oak Cafe sounds perfect" states no noise level.

The names are what a deployed system legitimately has (paper §2.2, Appendix F): the turn's
candidates and the public KB's POIs of the dialogue's city — never gold or hidden preferences.
A name matches case-insensitively with punctuation folded ("golden bbq & co", "Maes"), a
leading "The" optional ("skip Quiet Oak"); a name of one word (after "The") only when written
capitalised, so a POI called "Cafe" never hides the wish "a cafe".  Abbreviations ("the
Marriott" for "Downtown Marriott Resort") are not recognised.  The masked span becomes ``x``
letters of the same length, so offsets stay valid and the span is neither a keyword, a
negation cue nor a pronoun ("skip Kitchen Thibodeaux" still rejects a place, it does not
withdraw the last sentence).  The rejection reader (:mod:`trace_crs.baselines.rejection`)
still sees the names: naming a place is how a traveller points at it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_TOKEN = re.compile(r"[^\W_]+")
_JOIN = r"[\W_]*"


def _piece(name: str) -> tuple[str, bool] | None:
    """The regex for ``name`` and whether it has more than one word; None for no word."""
    words = _TOKEN.findall(name.replace("&", " and ").casefold())
    if words[:1] == ["the"] and len(words) > 1:
        words = words[1:]
    if not words:
        return None
    alts = [r"(?:and|&)" if w == "and" else re.escape(w) for w in words]
    return r"(?:the\s+)?" + _JOIN.join(alts), len(words) > 1


@lru_cache(maxsize=64)
def matchers(names: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """One compiled matcher for the multi-word names (any case) and one for the one-word names
    (capitalised only), longest first; compiled once per set of names (one per KB city)."""
    multi: set[str] = set()
    single: set[str] = set()
    for name in names:
        piece = _piece(name)
        if piece is not None:
            (multi if piece[1] else single).add(piece[0])

    def compile_(pieces: set[str], flags: int) -> re.Pattern[str] | None:
        if not pieces:
            return None
        alts = "|".join(sorted(pieces, key=lambda p: (-len(p), p)))
        return re.compile(r"(?<![\w'])(?:" + alts + r")(?!\w)", flags)

    single_cap = {r"(?i:the\s+)?" + p[len(r"(?:the\s+)?") :].capitalize() for p in single}
    return compile_(multi, re.IGNORECASE), compile_(single_cap, 0)


def name_key(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as the sorted, de-duplicated tuple :func:`matchers` caches on."""
    return tuple(sorted({n for n in names if n}))


def masked(text: str, names: tuple[str, ...]) -> str:
    """``text`` with every known place name replaced by ``x`` letters of the same length."""
    if not names:
        return text
    chars = list(text)
    for pattern in matchers(names):
        if pattern is None:
            continue
        for m in pattern.finditer(text):
            chars[m.start() : m.end()] = "x" * (m.end() - m.start())
    return "".join(chars)
