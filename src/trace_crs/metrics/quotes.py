"""Read review-span citations in response text.

Response convention (ARCHITECTURE §3; defined once in :mod:`trace_crs.dialogues.schema`): a
quote is a span in straight double quotes followed (after optional spaces) by its label ``[Rn]``.  ``labels`` finds every ``[Rn]`` (also bare
ones that follow no quote) with its character offset, for Provenance Coverage (Appendix J).

Label resolution (:func:`resolve_labels`, used by every grounding metric):

* if the prediction carries a non-empty ``citations`` list, label ``Rn`` resolves to the
  ``review_id`` of the citation with that label; a label not listed there is unresolved
  (its quotes fail GS, and it contributes no cited text);
* if ``citations`` is absent or empty, label ``Rn`` resolves to the n-th review (1-based,
  reviews sorted by ``review_id``, i.e. ``KB.reviews_of``) of the top-ranked POI; an ``n``
  beyond that POI's review count is unresolved.
"""

from __future__ import annotations

from collections.abc import Sequence

from trace_crs.dialogues.schema import LABEL_RE, QUOTE_RE, Quote, parse_quotes

__all__ = ["LABEL_RE", "QUOTE_RE", "Quote", "label_offsets", "parse_quotes", "resolve_labels"]


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
