"""The quote rule, in one place: when a quote counts as found in the review it cites.  The
grounding score (:mod:`trace_crs.metrics.grounding`, paper §3 / Appendix J — its docstring
states the rule and its reasons) and the generator's validation (:mod:`trace_crs.dialogues.
validate`, Appendix G) both apply it, so a quote the metric rejects is never validated.
Top-level (shared by every layer) because ``dialogues`` sits below ``metrics``."""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz

from trace_crs.segment import sentence_spans, words

MIN_QUOTE_WORDS = 4  # condition 1 of the GS rule (metrics.grounding docstring)


_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    """Lower-cased, white space collapsed."""
    return _SPACE.sub(" ", text.lower()).strip()


@lru_cache(maxsize=200_000)
def quote_match(quote: str, review_text: str) -> float:
    """Fuzzy match (0–1) of ``quote`` *inside* ``review_text``: ``partial_ratio`` / 100 of the
    normalised strings, and 0 when the quote is longer than the review (quote-in-review only)."""
    q, r = _norm(quote), _norm(review_text)
    if not q or len(q) > len(r):
        return 0.0
    return fuzz.partial_ratio(q, r) / 100.0


@lru_cache(maxsize=200_000)
def quote_grounded(quote: str, review_text: str, threshold: float) -> bool:
    """Conditions 1–3 of the GS rule (:mod:`trace_crs.metrics.grounding` docstring): long enough, found in the review as a
    whole, and each of its sentences found there too."""
    if len(words(quote)) < MIN_QUOTE_WORDS or quote_match(quote, review_text) < threshold:
        return False
    spans = sentence_spans(quote)
    return len(spans) <= 1 or all(quote_match(quote[a:b], review_text) >= threshold for a, b in spans)
