"""Read review-span citations in response text, for scoring.

Quotes are read by the one reader, :mod:`trace_crs.dialogues.quote_reader` (its docstring lists
the forms): ``"q" [Rn]`` (ARCHITECTURE §3), the same in typographic marks (“q” [R1], „q“, «q»),
several labels after one quote (``"q" [R1, R2]``, ``"q" [R1][R2]``) and label-first quotes
(``[R1] "q"``).  The LLM baselines' own citation records read the same quotes.  A system that
writes “great pasta” [R1] or [R1] "great pasta" quotes as much as one that writes
"great pasta" [R1] (§3: a quote is a verbatim span with its citation label), where a
straight-only reading found no quote and gave the turn the vacuous GS 1.0 and a CD of 0.
:func:`quote_counts` says in the score file what was read and what was not.

``label_offsets`` finds every label (``[Rn]`` or a group ``[R1, R2]``, also bare ones that follow
no quote) with its character offset, for Provenance Coverage (Appendix J).

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

from trace_crs.dialogues.quote_reader import (
    ANY_LABEL_RE,
    CLOSING,
    LABEL_RE,
    OPENING,
    QUOTE_RE,
    TYPOGRAPHIC,
    Quote,
    blank_quotes,
    label_names,
    parse_quotes,
    quote_spans,
)

__all__ = [
    "ANY_LABEL_RE",
    "LABEL_RE",
    "QUOTE_RE",
    "TYPOGRAPHIC",
    "Quote",
    "blank_quotes",
    "label_names",
    "label_offsets",
    "parse_quotes",
    "quote_counts",
    "quote_spans",
    "resolve_labels",
    "unlabelled_spans",
]

_ANY_QUOTED = re.compile(rf'["{OPENING}]([^"{TYPOGRAPHIC}]+)["{CLOSING}]')
ELLIPSIS_RE = re.compile(r"\s*(?:\u2026|\.\.\.)\s*")  # "…" or "...": an omission inside a quote


def unlabelled_spans(text: str) -> list[str]:
    """Spans in double quotation marks (straight or typographic) of ≥ 4 words that no label reads
    (:mod:`~trace_crs.dialogues.quote_reader`) — a quote in a form the reader does not read
    (``[r1]``, ``(R1)``) or a phrase quoted without a citation.  Read quotes are blanked first, so
    marks pair up."""
    return [m.group(1) for m in _ANY_QUOTED.finditer(blank_quotes(text)) if len(m.group(1).split()) >= 4]


def quote_counts(texts: Sequence[str]) -> dict[str, int]:
    """What the quote reader read in ``texts``, for the score file: quotes, those written with
    typographic marks, with the label first, citing several labels, or holding an ellipsis; labels
    that close no quote, quoted spans no label reads (:func:`unlabelled_spans`), and turns
    without a quote that carry either — citation marks the grounding metrics did not read (their
    GS is the vacuous 1.0, CD 0)."""
    out = dict.fromkeys(
        (
            "quotes",
            "typographic_marks",
            "label_first",
            "several_labels",
            "with_ellipsis",
            "labels_without_quote",
            "unlabelled_quoted_spans",
            "turns_marks_but_no_quote",
        ),
        0,
    )
    for text in texts:
        spans = quote_spans(text)
        n_labels, n_spans = len(label_names(blank_quotes(text))), len(unlabelled_spans(text))
        out["quotes"] += len(spans)
        out["typographic_marks"] += sum(text[q.start] in TYPOGRAPHIC for _, _, q in spans)
        out["label_first"] += sum(a < q.start for a, _, q in spans)
        out["several_labels"] += sum(len(q.labels) > 1 for _, _, q in spans)
        out["with_ellipsis"] += sum(bool(ELLIPSIS_RE.search(q.text)) for _, _, q in spans)
        out["labels_without_quote"] += n_labels
        out["unlabelled_quoted_spans"] += n_spans
        out["turns_marks_but_no_quote"] += bool((n_labels or n_spans) and not spans)
    return out


def label_offsets(text: str) -> list[int]:
    """Character offsets of the ``[`` of every label (``[Rn]`` or ``[R1, R2]``) in ``text``."""
    return [m.start() for m in ANY_LABEL_RE.finditer(text)]


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
