"""Misspelled facet words in a traveller's turn, corrected against the public facet lexicon
before the preference reader (:mod:`trace_crs.baselines.preferences`) looks for keywords
(paper Appendix F "S+KB": what a deployed system could read from the text alone; travellers
type on phones: "itallian", "mexcian", "kid freindly").

A word is replaced by a lexicon word only when every guard holds, so that real English words
one letter away from a keyword keep their sense ("lovely" is not "lively", "quite" is not
"quiet"):

* it is at least ``MIN_LENGTH`` letters (the generated dialogues hold "thali", an Indian
  dish one letter from "thai") and no name (capitalised inside a
  sentence, or before another capitalised word: "Tandoor Sutter");
* it is no English word (the ``web2`` and ``gcide`` lists of the ``english-words`` package,
  with a plural/verb ending -s, -es, -ed, -ing, -ly stripped) and no word of the lexicon;
* exactly one lexicon word lies at optimal-string-alignment distance ``MAX_EDITS`` (one
  insertion, deletion, substitution or swap of neighbours: rapidfuzz's ``OSA``) — a tie is
  left unread.

The corrected text may differ in length from the typed one; the reader takes all offsets from
the corrected text.
"""

from __future__ import annotations

import re
from functools import cache

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract

from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import facet_lexicon

MIN_LENGTH = 6  # "thali" (an Indian dish, 5 letters) is one letter from "thai"
MAX_EDITS = 1
_WORD = re.compile(r"(?<![\w'’-])[A-Za-z]+(?![\w'’])")
_NEXT = re.compile(r"\s+([A-Za-z])")
_ENDINGS = ("s", "es", "ed", "ing", "ly")


@cache
def english() -> frozenset[str]:
    """Lower-case English words (``english-words``: web2 + gcide, letters only)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2", "gcide"], lower=True, alpha=True))


@cache
def vocabulary() -> tuple[str, ...]:
    """The words of the facet lexicon's keywords (split at spaces and hyphens), lower-case."""
    lex = facet_lexicon()
    words = {w for f in FACET_KEYS if f in lex for ks in lex[f].values() for k in ks for w in re.split(r"[\s-]+", k)}
    return tuple(sorted(w.lower() for w in words if w.isalpha()))


@cache
def _known_words() -> frozenset[str]:
    return english() | frozenset(vocabulary())


def _known(word: str) -> bool:
    """An English or lexicon word, also with a common ending stripped ("emails", "parked")."""
    known = _known_words()
    return word in known or any(word.endswith(e) and word[: -len(e)] in known for e in _ENDINGS)


@cache
def correction(word: str) -> str | None:
    """The one lexicon word ``word`` (lower-case) is a misspelling of, or None (module guards)."""
    if len(word) < MIN_LENGTH or _known(word):
        return None
    near = extract(word, vocabulary(), scorer=OSA.distance, score_cutoff=MAX_EDITS, limit=None)
    best = [w for w, d, _ in near if d <= MAX_EDITS]
    return best[0] if len(best) == 1 else None


def corrected(text: str) -> str:
    """``text`` with each misspelled lexicon word replaced (module docstring); a capitalised
    word is a name and kept, unless it opens a sentence and the next word is lower-case."""

    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        before, after = text[: m.start()].rstrip(), _NEXT.match(text, m.end())
        if word[0].isupper() and (before[-1:] not in ("", ".", "!", "?") or (after and after.group(1)[0].isupper())):
            return word
        fixed = correction(word.lower())
        return word if fixed is None else fixed

    return _WORD.sub(one, text)
