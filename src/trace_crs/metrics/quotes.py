"""Read review-span citations in response text.

Response convention (ARCHITECTURE §3; defined once in :mod:`trace_crs.dialogues.schema`): a
quote is a span in straight double quotes followed (after optional spaces) by its label ``[Rn]``.  ``labels`` finds every ``[Rn]`` (also bare
ones that follow no quote) with its character offset, for Provenance Coverage (Appendix J).

Scoring also reads quotes in typographic double quotation marks (“…”, „…“, «…») followed by a
label, where no straight quote is (:func:`quote_spans`): a system that writes
“great pasta” [R1] quotes as much as one that writes "great pasta" [R1] (§3: a quote is a
verbatim span with its citation label), where the straight-only reading found no quote and gave
the turn the vacuous GS 1.0 and a CD of 0.  Single quotation marks are not quote marks here (they
are apostrophes too).  :func:`quote_counts` says in the score file what was read.

Label resolution (:func:`resolve_labels`, used by every grounding metric):

* if the prediction carries a non-empty ``citations`` list, label ``Rn`` resolves to the
  ``review_id`` of the citation with that label; a label not listed there is unresolved
  (its quotes fail GS, and it contributes no cited text);
* if ``citations`` is absent or empty, label ``Rn`` resolves to the n-th review (1-based,
  reviews sorted by ``review_id``, i.e. ``KB.reviews_of``) of the top-ranked POI; an ``n``
  beyond that POI's review count is unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trace_crs.dialogues.schema import LABEL_RE, QUOTE_RE, Quote

__all__ = [
    "LABEL_RE",
    "QUOTE_RE",
    "TYPOGRAPHIC",
    "Quote",
    "blank_quotes",
    "label_offsets",
    "parse_quotes",
    "quote_counts",
    "quote_spans",
    "resolve_labels",
    "unlabelled_spans",
]

TYPOGRAPHIC = "\u201c\u201d\u201e\u201f\u00ab\u00bb"  # “ ” „ ‟ « »
_OPEN, _CLOSE = "\u201c\u201e\u00ab", "\u201d\u201c\u00bb"  # “…”, „…“, «…»
TYPOGRAPHIC_QUOTE_RE = re.compile(rf'[{_OPEN}]([^"{TYPOGRAPHIC}]+)[{_CLOSE}]\s*\[(R\d+)\]')
_ANY_QUOTED = re.compile(rf'["{_OPEN}]([^"{TYPOGRAPHIC}]+)["{_CLOSE}]')
ELLIPSIS_RE = re.compile(r"\s*(?:\u2026|\.\.\.)\s*")  # "…" or "...": an omission inside a quote


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text


def quote_spans(text: str) -> list[tuple[int, int, Quote]]:
    """``(start, end, quote)`` of every quote, in order: the straight ``"…" [Rn]`` ones exactly as
    :data:`QUOTE_RE` reads them (typographic marks inside such a quote are its text, as in a
    review), then ``“…” [Rn]`` / ``„…“ [Rn]`` / ``«…» [Rn]`` in what is left."""
    straight = [(m.start(), m.end(), Quote(m.group(1), m.group(2), m.start())) for m in QUOTE_RE.finditer(text)]
    rest = _blank(text, [(a, b) for a, b, _ in straight])
    typo = [(m.start(), m.end(), Quote(m.group(1), m.group(2), m.start())) for m in TYPOGRAPHIC_QUOTE_RE.finditer(rest)]
    return sorted(straight + typo, key=lambda x: x[0])


def parse_quotes(text: str) -> list[Quote]:
    """The quotes of a response, straight or typographic marks (module docstring)."""
    return [q for _, _, q in quote_spans(text)]


def blank_quotes(text: str) -> str:
    """``text`` with every quote and its label replaced by spaces (offsets kept)."""
    return _blank(text, [(a, b) for a, b, _ in quote_spans(text)])


def unlabelled_spans(text: str) -> list[str]:
    """Spans in double quotation marks (straight or typographic) of ≥ 4 words that no ``[Rn]``
    label follows — a quote in a form the parser does not read (``[R1, R2]``, ``[r1]``, ``(R1)``)
    or a phrase quoted without a citation.  Labelled quotes are blanked first, so marks pair up."""
    return [m.group(1) for m in _ANY_QUOTED.finditer(blank_quotes(text)) if len(m.group(1).split()) >= 4]


def quote_counts(texts: Sequence[str]) -> dict[str, int]:
    """What the quote parser read in ``texts``, for the score file: quotes, those written with
    typographic marks or holding an ellipsis, ``[Rn]`` labels that close no quote, quoted spans
    no label follows (:func:`unlabelled_spans`), and turns without a quote that carry either —
    citation marks the grounding metrics did not read (their GS is the vacuous 1.0, CD 0)."""
    out = dict.fromkeys(
        (
            "quotes",
            "typographic_marks",
            "with_ellipsis",
            "labels_without_quote",
            "unlabelled_quoted_spans",
            "turns_marks_but_no_quote",
        ),
        0,
    )
    for text in texts:
        quotes = parse_quotes(text)
        n_labels, n_spans = len(LABEL_RE.findall(text)), len(unlabelled_spans(text))
        out["quotes"] += len(quotes)
        out["typographic_marks"] += sum(text[q.start] in TYPOGRAPHIC for q in quotes)
        out["with_ellipsis"] += sum(bool(ELLIPSIS_RE.search(q.text)) for q in quotes)
        out["labels_without_quote"] += n_labels - len(quotes)
        out["unlabelled_quoted_spans"] += n_spans
        out["turns_marks_but_no_quote"] += bool((n_labels or n_spans) and not quotes)
    return out


def label_offsets(text: str) -> list[int]:
    """Character offsets of the ``[`` of every ``[Rn]`` label in ``text``."""
    return [m.start() for m in LABEL_RE.finditer(text)]


def resolve_labels(
    labels: Sequence[str], citations: Sequence[dict] | None, top_reviews: Sequence[str]
) -> dict[str, str]:
    """Map each label to a review id (unresolved labels are left out); see module docstring.

    ``top_reviews`` are the review ids of the top-ranked POI sorted by review id.
    """
    if citations:
        by_label = {c["label"]: c["review_id"] for c in citations}
        return {lab: by_label[lab] for lab in labels if lab in by_label}
    out = {}
    for lab in labels:
        n = int(lab[1:])
        if 1 <= n <= len(top_reviews):
            out[lab] = top_reviews[n - 1]
    return out
