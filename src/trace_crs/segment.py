"""One home for splitting text into sentences and words (STYLE: one home for tokenizing).

* A sentence ends at a run of ``.``, ``!`` or ``?`` followed by white space or the end of the
  text, or at a line break.  "3.5 stars" and "a.m." are therefore not split.
* In a *response* (``quote_aware=True``) a boundary inside a double-quoted span is ignored: a
  quote ``"…" [Rn]`` may hold several review sentences and stays one sentence with its label.
  Review text is split with ``quote_aware=False`` (reviews may hold a stray ``"``).
* Word tokens: :func:`words` (``\\w+`` runs, for counting words of a claim or a quote) and
  :func:`terms` (lower-cased letters, digits and apostrophes: the retrieval vocabulary of the
  lexical baselines).  BLEU and ROUGE keep the tokenizers their definitions prescribe
  (:mod:`trace_crs.metrics.text`).
"""

from __future__ import annotations

import re
from bisect import bisect_left

SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n")
_WORD = re.compile(r"\w+")
_TERM = re.compile(r"[a-z0-9']+")


def sentence_spans(text: str, quote_aware: bool = False) -> list[tuple[int, int]]:
    """``(start, end)`` of each non-empty sentence of ``text``, without surrounding white space;
    each span includes its closing punctuation."""
    cuts, last = [], 0
    quotes = [m.start() for m in re.finditer('"', text)] if quote_aware else []
    for m in SENTENCE_END.finditer(text):
        if quote_aware and bisect_left(quotes, m.start()) % 2 == 1:  # an odd number of quotes before: inside one
            continue
        cuts.append((last, m.end()))
        last = m.end()
    cuts.append((last, len(text)))
    spans = []
    for start, end in cuts:
        piece = text[start:end]
        lead, trail = len(piece) - len(piece.lstrip()), len(piece) - len(piece.rstrip())
        if end - trail > start + lead:
            spans.append((start + lead, end - trail))
    return spans


def split_sentences(text: str, quote_aware: bool = True) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`); responses by default."""
    return [text[a:b] for a, b in sentence_spans(text, quote_aware)]


def words(text: str) -> list[str]:
    """Word tokens (``\\w+`` runs), case kept."""
    return _WORD.findall(text)


def terms(text: str) -> list[str]:
    """Lower-cased retrieval tokens (letters, digits, apostrophes)."""
    return _TERM.findall(text.lower())
