"""Sentence categories of a system response (paper Appendix L, "sentence-category composition").

Every sentence of a response falls in one of four categories, checked in this order:

* **quote** — contains double-quoted content in a form the quote reader reads
  (:mod:`trace_crs.dialogues.quote_reader`): straight ``"…"`` or typographic “…”, „…“, «…»,
  with or without a label;
* **rating_meta** — structured attributes from POI metadata: a star rating, a review count or
  a price level (``$$``, "price", "priced");
* **framing** — recommendation meta-language with no claim about the POI: "I'd suggest X",
  "here are two options", "another option is X", "I would lean towards X";
* **other_claim** — anything else: a synthesized claim about the POI.

Sentences are split at ``.``, ``!`` or ``?`` followed by white space, never inside a quoted
span (a quote may hold several review sentences), with ``[Rn]`` labels kept with their quote:
:func:`trace_crs.segment.split_sentences` keeps straight quotes whole, and a boundary it finds
inside a quote the reader reads in another form (a typographic “…” [Rn]) is joined back
(:func:`response_sentences`).  An unlabelled typographic quote holding a sentence end is still
split there (the reader reads quotes by their labels).
The paper's TF-IDF composition (57.1 / 16.7 / 16.0 / 10.1 %) is in the book beside ours.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from trace_crs.dialogues.quote_reader import CLOSING, OPENING, TYPOGRAPHIC, quote_spans
from trace_crs.segment import sentence_spans

CATEGORIES: tuple[str, ...] = ("quote", "framing", "rating_meta", "other_claim")
# a quoted span as the reader pairs its marks: straight "…", or a typographic pair with no mark inside
_QUOTED = re.compile(rf'"[^"]+"|[{OPENING}][^{TYPOGRAPHIC}]+[{CLOSING}]')
_RATING = re.compile(r"\b\d(?:\.\d)?\s*(?:stars?|★)|\b\d+\s+reviews?\b|\$+|\bprice[ds]?\b|\brated\b", re.IGNORECASE)
_FRAMING = re.compile(
    r"^(?:i'?d (?:suggest|recommend)|i (?:recommend|suggest|would (?:lean|go)|could not find)|here (?:are|is)|"
    r"another option|you (?:might|could) (?:try|like|consider)|consider|try|let me|comparing|how about|"
    r"my (?:top )?pick)\b",
    re.IGNORECASE,
)


def categorize(sentence: str) -> str:
    """The category of one sentence (see the module docstring)."""
    if _QUOTED.search(sentence):
        return "quote"
    if _RATING.search(sentence):
        return "rating_meta"
    if _FRAMING.search(sentence.strip()):
        return "framing"
    return "other_claim"


def response_sentences(text: str) -> list[str]:
    """The sentences of a response (module docstring): ``segment``'s quote-aware spans, with the
    spans a read quote runs across joined into one."""
    quotes = [(q.start, q.start + len(q.text) + 2) for _, _, q in quote_spans(text)]  # opening to closing mark
    spans: list[tuple[int, int]] = []
    for a, b in sentence_spans(text, quote_aware=True):
        if spans and any(qa < spans[-1][1] and a < qb for qa, qb in quotes):  # the cut lies inside a quote
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    return [text[a:b] for a, b in spans]


def composition(texts: Iterable[str]) -> dict[str, float]:
    """Share of each category over all sentences of ``texts`` (keys :data:`CATEGORIES`, plus
    ``n_sentences``); shares are NaN without sentences."""
    counts = Counter(categorize(s) for t in texts for s in response_sentences(t))
    n = sum(counts.values())
    return {**{c: (counts[c] / n if n else float("nan")) for c in CATEGORIES}, "n_sentences": n}
