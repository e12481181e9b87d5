"""What the preference reader (:mod:`trace_crs.baselines.preferences`) does to a real
traveller's turn before it looks for facet keywords (paper Appendix F "S+KB": what a deployed
system could read from the text alone).  Every step keeps the text's length, so offsets stay
valid for the cue scopes of :mod:`trace_crs.baselines.negation`:

* :func:`fold` — accents folded ("café" → "cafe"), a hyphenated keyword of the public facet
  lexicon written with a space hyphenated ("kid friendly", "laid back") and the plural of a
  one-word keyword read as the keyword ("bars" → "bar  ", "museums", "galleries"), since
  travellers write plurals the lexicon lists in the singular — not in a title-case word,
  which is most often a name ("The Morning Gardens"), nor inside a keyword already matched
  ("guided tours" stays the feature, not the tour style).

The facet lexicon itself (``kb/data/facet_lexicon.yaml``) is shared with the review writer
and the dialogue simulator, so what only a *reader* needs lives here; nothing here comes from
the simulator's templates.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import facet_lexicon, find_facets


@cache
def _keywords() -> frozenset[str]:
    """The one-word keywords of the facet lexicon, lower-cased."""
    lex = facet_lexicon()
    return frozenset(w.lower() for f in FACET_KEYS if f in lex for ws in lex[f].values() for w in ws if " " not in w)


def _singular(word: str) -> str | None:
    """The lexicon keyword ``word`` is the plural of, or None."""
    low, kw = word.lower(), _keywords()
    if low in kw or len(low) < 4 or not low.endswith("s"):
        return None
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        if low.endswith(cut) and low[: -len(cut)] + add in kw:
            return low[: -len(cut)] + add
    return None


@cache
def _spaced() -> re.Pattern[str] | None:
    """Hyphenated keywords written with a space instead ("kid friendly", "laid back")."""
    lex = facet_lexicon()
    words = {w.lower() for f in FACET_KEYS if f in lex for ws in lex[f].values() for w in ws if "-" in w}
    alts = sorted((re.escape(w).replace(r"\-", r"\s") for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])", re.IGNORECASE) if alts else None


def fold(text: str) -> str:
    """``text`` with accents folded, keyword plurals singular and hyphenated keywords written
    with a space hyphenated, padded to the same length."""
    text = "".join(unicodedata.normalize("NFD", ch)[0] if ord(ch) > 127 else ch for ch in text)
    spaced = _spaced()
    if spaced is not None:
        text = spaced.sub(lambda m: re.sub(r"\s", "-", m.group(0)), text)

    kept = [(a, b) for f in FACET_KEYS for _, a, b in find_facets(text, f)]  # "guided tours" is a keyword

    def one(m: re.Match[str]) -> str:
        if m.group(0).istitle() or any(a <= m.start() < b for a, b in kept):  # "The Morning Gardens": a name
            return m.group(0)
        single = _singular(m.group(0))
        return m.group(0) if single is None else single.ljust(len(m.group(0)))

    return re.sub(r"[A-Za-z]+", one, text)
