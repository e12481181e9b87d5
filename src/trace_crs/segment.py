"""One home for splitting text into sentences and words (STYLE: one home for tokenizing).

* A sentence ends at a run of ``.``, ``!`` or ``?`` followed by white space or the end of the
  text, or at a line break.  "3.5 stars" and "a.m." are therefore not split.
* In a *response* (``quote_aware=True``) a boundary inside a quoted span is ignored: a quote
  ``"…" [Rn]`` may hold several review sentences and stays one sentence with its label.  The
  quoted spans are paired as the quote reader (:mod:`trace_crs.dialogues.quote_reader`) pairs
  them, for every mark it reads: straight ``"…"`` and the typographic pairs “…”, „…“, «…»
  (:data:`OPENING` / :data:`CLOSING`, defined here, the lowest layer, and re-exported by the
  reader).  Marks are paired left to right: the first opening mark opens a span that its own
  closing mark ends, and any other mark inside it is text (nested marks).  A mark with no
  closing partner (an unclosed quote, a lone ``”``) opens nothing, so it does not swallow the
  rest of the response.  Single marks ‘ ’ are not quotes (’ is also the apostrophe: ``don’t``).
  A label is not needed: an unlabelled quoted span is kept whole too.
  Review text is split with ``quote_aware=False`` (reviews may hold a stray ``"``).
* Word tokens: :func:`words` (``\\w+`` runs, for counting words of a claim or a quote) and
  :func:`terms` (lower-cased letters, digits and apostrophes: the retrieval vocabulary of the
  lexical baselines).  BLEU and ROUGE keep the tokenizers their definitions prescribe
  (:mod:`trace_crs.metrics.text`).
"""

from __future__ import annotations

import re
from bisect import bisect_right

SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n")
# The double quotation marks the quote reader reads (paper App. J): straight ``"`` and these
# typographic pairs; U+201C “ closes „ and opens “…”.  Single marks are apostrophes too.
TYPOGRAPHIC = "\u201c\u201d\u201e\u201f\u00ab\u00bb"  # “ ” „ ‟ « »
OPENING, CLOSING = "\u201c\u201e\u00ab", "\u201d\u201c\u00bb"  # typographic pairs “…”, „…“, «…»
# a quoted span, the leftmost opening mark first: straight, or a typographic pair with no mark inside
QUOTED_RE = re.compile(rf'"[^"]*"|[{OPENING}][^{TYPOGRAPHIC}]*[{CLOSING}]')
_WORD = re.compile(r"\w+")
_TERM = re.compile(r"[a-z0-9']+")


def sentence_spans(text: str, quote_aware: bool = False) -> list[tuple[int, int]]:
    """``(start, end)`` of each non-empty sentence of ``text``, without surrounding white space;
    each span includes its closing punctuation."""
    cuts, last = [], 0
    quoted = [(m.start(), m.end()) for m in QUOTED_RE.finditer(text)] if quote_aware else []
    starts = [a for a, _ in quoted]
    for m in SENTENCE_END.finditer(text):
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < quoted[i][1]:  # the boundary lies inside a quoted span
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
