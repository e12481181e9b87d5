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

Sentences are the response's quote-aware sentences (:func:`trace_crs.segment.split_sentences`):
split after ``.``, ``!`` or ``?`` followed by white space, never inside a quoted span in any
form the reader reads (a quote may hold several review sentences), ``[Rn]`` labels kept with
their quote.
The paper's TF-IDF composition (57.1 / 16.7 / 16.0 / 10.1 %) is in the book beside ours.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from trace_crs.segment import QUOTED_RE, split_sentences

CATEGORIES: tuple[str, ...] = ("quote", "framing", "rating_meta", "other_claim")
_RATING = re.compile(r"\b\d(?:\.\d)?\s*(?:stars?|★)|\b\d+\s+reviews?\b|\$+|\bprice[ds]?\b|\brated\b", re.IGNORECASE)
_FRAMING = re.compile(
    r"^(?:i'?d (?:suggest|recommend)|i (?:recommend|suggest|would (?:lean|go)|could not find)|here (?:are|is)|"
    r"another option|you (?:might|could) (?:try|like|consider)|consider|try|let me|comparing|how about|"
    r"my (?:top )?pick)\b",
    re.IGNORECASE,
)


def categorize(sentence: str) -> str:
    """The category of one sentence (see the module docstring)."""
    if any(m.end() - m.start() > 2 for m in QUOTED_RE.finditer(sentence)):  # a non-empty quoted span
        return "quote"
    if _RATING.search(sentence):
        return "rating_meta"
    if _FRAMING.search(sentence.strip()):
        return "framing"
    return "other_claim"


def composition(texts: Iterable[str]) -> dict[str, float]:
    """Share of each category over all sentences of ``texts`` (keys :data:`CATEGORIES`, plus
    ``n_sentences``); shares are NaN without sentences."""
    counts = Counter(categorize(s) for t in texts for s in split_sentences(t))
    n = sum(counts.values())
    return {**{c: (counts[c] / n if n else float("nan")) for c in CATEGORIES}, "n_sentences": n}
