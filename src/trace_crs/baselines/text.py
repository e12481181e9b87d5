"""Tokenisation and the 80-word stop list shared by the lexical baselines (Appendix F,
TFIDFBaseline: "Removes 80 stop words").

``tokenize`` lower-cases and keeps runs of letters, digits and apostrophes; ``content_terms``
drops the stop words.  The query of every non-LLM baseline is the concatenation of all user
turns before the system turn being predicted (:func:`query_text`).
"""

from __future__ import annotations

from collections.abc import Iterable

from trace_crs.segment import terms

STOP_WORDS: frozenset[str] = frozenset(
    """
a about after all also am an and any are as at be been before being but by can could did
do does for from had has have he her here him his how i if in into is it its me more
my no not of on or our out so some than that the their them then there these they
this to too up very was we were what when where which who will with would you your
""".split()
)


tokenize = terms  # lower-cased retrieval tokens (letters, digits, apostrophes): trace_crs.segment.terms


def content_terms(texts: Iterable[str]) -> set[str]:
    """The set of non-stop-word tokens over ``texts``."""
    return {t for text in texts for t in tokenize(text) if t not in STOP_WORDS}


def query_text(user_texts: Iterable[str]) -> str:
    """The retrieval query: all user turns so far, joined by a space (Appendix F)."""
    return " ".join(user_texts)
