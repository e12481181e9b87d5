"""Reading and checking prediction files (ARCHITECTURE §5).

A prediction is ``{"dialogue_id", "turn_id", "ranked_poi_ids": [...], "text": "...",
"citations": [{"label": "R1", "review_id": "..."}]}`` (``citations`` optional), one per
reference system recommend/compare turn.  Every problem — malformed JSON, a missing or
mistyped field, a misspelt ``citations`` field (``citation``, ``Citations``, …: it would
silently fall back to the default label rule), a POI ranked twice, a citation label listed
twice, an unknown dialogue / turn / POI / review id, a ranked id outside the turn's
candidate pool (another city, another type, or simply not offered), a duplicate turn, an
empty file — raises :class:`PredictionError` (a :class:`~trace_crs.errors.DataError`, exit 3)
naming the file, line and field.  Predictions of corpus dialogues outside the scored subset
are skipped and counted (``PredictionSet.ignored``), not errors.

Citations are honest only when they point at the POIs the turn presents: a label resolves
only to a review of one of the top :data:`CITABLE_TOP` ranked POIs (the POIs a response can
present; the Recall@3 window); a label citing any other review is *off target* — counted,
and scored as an unresolved (ungrounded) quote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from rapidfuzz import fuzz

from trace_crs.config import POOLS
from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.errors import DataError
from trace_crs.kb import KB, KBFormatError
from trace_crs.kb.store import iter_jsonl
from trace_crs.metrics.quotes import label_names, resolve_labels

Key = tuple[str, int]


class PredictedCitation(TypedDict):
    """One citation of a prediction: its label in the text and the review it cites (a ``quote``
    from the runner's records may ride along; it is never read)."""

    label: str
    review_id: str


def cited_labels(citations: list[dict[str, Any]]) -> list[PredictedCitation]:
    """A prediction's citations, one per label in first-cited order: a prediction maps each label to
    the review it names, and a reply that quotes one label twice (two quotes of one review) names
    that review once.  One label naming two reviews is a baseline bug (ValueError)."""
    reviews: dict[str, str] = {}
    for c in citations:
        if reviews.setdefault(c["label"], c["review_id"]) != c["review_id"]:
            raise ValueError(f"label {c['label']!r} names two reviews: {reviews[c['label']]!r}, {c['review_id']!r}")
    return [PredictedCitation(label=label, review_id=review_id) for label, review_id in reviews.items()]


class Prediction(TypedDict):
    """One line of a predictions file, the ``trace-crs score`` input (ARCHITECTURE §5)."""

    dialogue_id: str
    turn_id: int
    ranked_poi_ids: list[str]
    text: str
    citations: list[PredictedCitation]


CITABLE_TOP = 3


class PredictionError(DataError):
    """A prediction record is invalid; the message names where and which field."""

    def __init__(self, where: str, field: str, problem: str):
        ValueError.__init__(self, f"{where}: field '{field}': {problem}")
        self.file, self.line, self.field = where, None, field


class PredictionSet(dict):
    """Validated predictions by ``(dialogue_id, turn_id)``; ``ignored`` counts records of
    corpus dialogues outside the scored subset."""

    ignored: int = 0


def pool_of(dialogue: Mapping[str, Any], pool: str) -> set[str]:
    """The candidate ids a system saw for ``pool`` (closed 8, expanded 16 / 32, open set)."""
    if pool == "closed":
        return set(dialogue.get("candidate_poi_ids") or [])
    if pool in ("16", "32"):
        return set((dialogue.get("expanded_pool_poi_ids") or {}).get(pool) or [])
    if pool == "open":
        return set(dialogue.get("open_set_poi_ids") or [])
    raise ValueError(f"unknown pool {pool!r}; expected one of {', '.join(POOLS)}")


def scored_turns(dialogues: Iterable[Mapping[str, Any]]) -> dict[Key, Mapping[str, Any]]:
    """{(dialogue_id, turn_id): turn} for every reference system recommend/compare turn."""
    return {
        (d["dialogue_id"], t["turn_id"]): t
        for d in dialogues
        for t in d["turns"]
        if t["role"] == "system" and t["action"] in REC_ACTIONS
    }


def check_prediction(
    rec: Any,
    where: str,
    turns: Mapping[Key, Any],
    dialogue_ids: set[str],
    kb: KB,
    pools: Mapping[str, set[str]] | None = None,
) -> dict:
    """Validate one prediction; returns it with ``citations`` defaulted to ``[]``.  With
    ``pools`` (dialogue id → candidate ids), a ranked id outside the dialogue's pool is an error."""
    if not isinstance(rec, dict):
        raise PredictionError(where, "<record>", "expected a JSON object")
    for name, typ in (("dialogue_id", str), ("turn_id", int), ("ranked_poi_ids", list), ("text", str)):
        if name not in rec:
            raise PredictionError(where, name, "missing")
        if not isinstance(rec[name], typ) or (typ is int and isinstance(rec[name], bool)):
            raise PredictionError(where, name, f"expected {typ.__name__}, got {type(rec[name]).__name__}")
    if rec["dialogue_id"] not in dialogue_ids:
        raise PredictionError(where, "dialogue_id", f"unknown dialogue {rec['dialogue_id']!r}")
    if (rec["dialogue_id"], rec["turn_id"]) not in turns:
        raise PredictionError(
            where, "turn_id", f"{rec['turn_id']} is not a system recommend/compare turn " f"of {rec['dialogue_id']}"
        )
    for key in rec:  # a misspelt optional field would silently fall back to the default rule
        if key != "citations" and fuzz.ratio(key.lower(), "citations") >= 80:
            raise PredictionError(where, key, "unknown field; did you mean 'citations'?")
    for k, pid in enumerate(rec["ranked_poi_ids"]):
        if pid in rec["ranked_poi_ids"][:k]:
            raise PredictionError(where, "ranked_poi_ids", f"{pid!r} is ranked twice")
        if not isinstance(pid, str) or pid not in kb.pois:
            raise PredictionError(where, "ranked_poi_ids", f"unknown POI id {pid!r}")
        if pools is not None and pid not in pools[rec["dialogue_id"]]:
            raise PredictionError(where, "ranked_poi_ids", f"{pid!r} is not a candidate of {rec['dialogue_id']}'s pool")
    citations = rec.get("citations") or []
    if not isinstance(citations, list):
        raise PredictionError(where, "citations", "expected a list")
    for c in citations:
        if not isinstance(c, dict) or not isinstance(c.get("label"), str) or not isinstance(c.get("review_id"), str):
            raise PredictionError(where, "citations", f"expected {{'label': str, 'review_id': str}}, got {c!r}")
        if c["review_id"] not in kb.reviews:
            raise PredictionError(where, "citations", f"unknown review id {c['review_id']!r}")
    labels = [c["label"] for c in citations]
    if len(set(labels)) != len(labels):
        raise PredictionError(where, "citations", f"a label is listed twice: {sorted(labels)}")
    return {**rec, "citations": citations}


def index_predictions(
    records: Iterable[tuple[str, Any]],
    dialogues: Sequence[Mapping[str, Any]],
    kb: KB,
    pool: str | None = None,
    outside: set[str] | frozenset[str] = frozenset(),
) -> PredictionSet:
    """Validate ``(where, record)`` pairs and index them by ``(dialogue_id, turn_id)``.
    ``pool`` checks ranked ids against each dialogue's candidates; records of dialogues in
    ``outside`` (corpus dialogues not being scored) are skipped and counted."""
    turns = scored_turns(dialogues)
    ids = {d["dialogue_id"] for d in dialogues}
    pools = {d["dialogue_id"]: pool_of(d, pool) for d in dialogues} if pool is not None else None
    out = PredictionSet()
    for where, rec in records:
        did = rec.get("dialogue_id") if isinstance(rec, dict) else None
        if isinstance(did, str) and did in outside and did not in ids:  # a list id is unhashable (validated below)
            out.ignored += 1
            continue
        rec = check_prediction(rec, where, turns, ids, kb, pools)
        key = (rec["dialogue_id"], rec["turn_id"])
        if key in out:
            raise PredictionError(where, "turn_id", f"duplicate prediction for {key[0]} turn {key[1]}")
        out[key] = rec
    return out


def read_predictions(
    path: str | Path,
    dialogues: Sequence[Mapping[str, Any]],
    kb: KB,
    pool: str | None = None,
    outside: set[str] | frozenset[str] = frozenset(),
) -> PredictionSet:
    """Read and validate a predictions JSON-lines file (an empty file is an error)."""
    try:
        pairs = [(f"{path}:{lineno}", rec) for lineno, rec in iter_jsonl(path)]
    except KBFormatError as exc:
        if not Path(path).exists():
            raise FileNotFoundError(f"predictions file {path} not found") from None
        where = f"{path}:{exc.line}" if exc.line is not None else str(path)
        raise PredictionError(where, exc.field_name, exc.problem) from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise PredictionError(str(path), "<json>", f"unreadable: {type(exc).__name__}: {str(exc)[:120]}") from None
    if not pairs:
        raise PredictionError(str(path), "<file>", "no predictions (empty file)")
    return index_predictions(pairs, dialogues, kb, pool, outside)


def cited_texts(kb: KB, pred: Mapping[str, Any]) -> dict[str, str]:
    """{label: cited review text} for the ``[Rn]`` labels of a prediction that resolve
    (rules in :mod:`trace_crs.metrics.quotes`) to a review of one of the top
    :data:`CITABLE_TOP` ranked POIs; labels citing any other review are dropped."""
    return _cited(kb, pred)[0]


def off_target(kb: KB, pred: Mapping[str, Any]) -> int:
    """Number of labels whose citation points at a review of a POI the turn does not present."""
    return _cited(kb, pred)[1]


def _cited(kb: KB, pred: Mapping[str, Any]) -> tuple[dict[str, str], int]:
    labels = sorted(set(label_names(pred["text"])))
    top = pred["ranked_poi_ids"][:1]
    top_reviews = [r.review_id for r in kb.reviews_of(top[0])] if top else []
    resolved = resolve_labels(labels, pred.get("citations") or [], top_reviews)
    presented = set(pred["ranked_poi_ids"][:CITABLE_TOP])
    kept = {lab: rid for lab, rid in resolved.items() if kb.reviews[rid].business_id in presented}
    return {lab: kb.reviews[rid].text for lab, rid in kept.items()}, len(resolved) - len(kept)
