"""The LLM dialogue generator's output as a schema dialogue (:mod:`trace_crs.dialogues.llm`, paper
§2.2): each JSON turn's ids and quote citations (read by :mod:`trace_crs.dialogues.quote_reader`), located in the cited review and
snapped to the exact span when the rapidfuzz partial ratio is ≥ the validator's threshold; the
gold and acceptable alternatives of recommend/compare turns.
"""

from __future__ import annotations

from typing import Any

import dspy
from rapidfuzz import fuzz

from trace_crs.dialogues.quote_reader import ANY_LABEL_RE, NAME_RE, label_names, parse_quotes
from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.dialogues.validate import FUZZY_THRESHOLD
from trace_crs.kb.store import KB


def parse_citations(
    text: str, review_ids: list[str], kb: KB, labels: dict[str, str] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Parse the quotes of ``text`` (:mod:`trace_crs.dialogues.quote_reader`: ``"quote" [Rn]`` and
    the other forms the scorer reads; one citation per label of a quote); locate each in its review
    (exact, else the best partial alignment, snapped into the text when its ratio is ≥ 0.80).  The
    review of ``[Rn]`` is ``review_ids[n-1]``, or with ``labels`` (excerpt label → review id)
    ``labels["Rn"]``; then every label of the text is renumbered ``R1, R2, …`` in order of first
    appearance."""
    if labels is None:

        def review_of(label: str, /) -> str:
            k = int(label[1:]) - 1
            return review_ids[k] if 0 <= k < len(review_ids) else ""
    else:
        new: dict[str, str] = {}
        for old in label_names(text):
            new.setdefault(old, f"R{len(new) + 1}")
        resolved = {new[old]: labels.get(old, "") for old in new}
        text = ANY_LABEL_RE.sub(lambda m: "[" + NAME_RE.sub(lambda n: new[n.group()], m.group(1)) + "]", text)
        review_of = resolved.__getitem__
    citations = []
    snaps: dict[int, tuple[int, str]] = {}  # quote offset -> (length as written, exact review span)
    for q in parse_quotes(text):
        for label in q.labels:
            rid = review_of(label)
            citations.append(_locate(q.text, label, rid, kb, snaps, q.start + 1))
    for at, (length, exact) in sorted(snaps.items(), reverse=True):
        text = text[:at] + exact + text[at + length :]
    return text, citations


def _locate(quote: str, label: str, rid: str, kb: KB, snaps: dict[int, tuple[int, str]], at: int) -> dict[str, Any]:
    """The citation of ``quote`` in review ``rid``; a near match (≥ the validator's threshold) is
    recorded in ``snaps`` at the quote's offset ``at`` to be written into the text (once)."""
    review = kb.reviews.get(rid)
    start, end = -1, -1
    if review is not None:
        start = review.text.find(quote)
        if start >= 0:
            end = start + len(quote)
        else:
            aln = fuzz.partial_ratio_alignment(quote, review.text)
            if (
                len(quote) <= len(review.text)
                and aln is not None
                and aln.score >= FUZZY_THRESHOLD
                and aln.dest_end > aln.dest_start
            ):
                start, end = aln.dest_start, aln.dest_end
                exact = review.text[start:end]
                snaps.setdefault(at, (len(quote), exact))
                quote = exact
            else:
                start, end = 0, len(quote)
    return {"label": label, "review_id": rid, "quote": quote, "start": max(start, 0), "end": max(end, 1)}


def to_dialogue(
    pred: dspy.Prediction, base: dict[str, Any], kb: KB, labels: dict[str, str] | None = None
) -> dict[str, Any]:
    """Assemble a dialogue record from a prediction and the scenario/pool fields ``base``;
    ``labels`` (labelled prompts: ``P1``… → POI id, ``R1``… → review id) turns the labels the
    model wrote in id lists and after quotes (see :func:`parse_citations`) into ids."""
    name = labels.get if labels else (lambda x, _=None: x)
    turns = []
    for raw in pred.turns:
        if not isinstance(raw, dict):
            raise ValueError(f"turn is not an object: {raw!r:.80}")
        review_ids = [name(r, r) for r in raw.get("referenced_review_ids") or []]
        text, citations = parse_citations(str(raw.get("text", "")), review_ids, kb, labels)
        turn: dict[str, Any] = {
            "turn_id": raw.get("turn_id"),
            "role": raw.get("role"),
            "action": raw.get("action"),
            "text": text,
            "referenced_poi_ids": [name(b, b) for b in raw.get("referenced_poi_ids") or []],
            "referenced_review_ids": review_ids,
            "citations": citations,
        }
        if turn["action"] in REC_ACTIONS:
            turn["gold_poi_ids"] = list(turn["referenced_poi_ids"])
            alts = [name(b, b) for b in (pred.multi_reference or {}).get(str(turn["turn_id"]), [])]
            turn["acceptable_alternative_poi_ids"] = [b for b in alts if b not in turn["gold_poi_ids"]]
        turns.append(turn)
    return {**base, "turns": turns}
