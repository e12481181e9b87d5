"""Reading and checking prediction files (ARCHITECTURE §5, issue 5 item 9).

A prediction is ``{"dialogue_id", "turn_id", "ranked_poi_ids": [...], "text": "...",
"citations": [{"label": "R1", "review_id": "..."}]}`` (``citations`` optional), one per
reference system recommend/compare turn.  Every problem — malformed JSON, a missing or
mistyped field, an unknown dialogue / turn / POI / review id, a duplicate turn — raises
:class:`PredictionError` naming the file, line and field.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from trace_crs.kb import KB, KBFormatError
from trace_crs.kb.store import iter_jsonl
from trace_crs.metrics.dialogue import REC_ACTIONS
from trace_crs.metrics.quotes import LABEL_RE, resolve_labels

Key = tuple[str, int]


class PredictionError(ValueError):
    """A prediction record is invalid; the message names where and which field."""

    def __init__(self, where: str, field: str, problem: str):
        super().__init__(f"{where}: field '{field}': {problem}")


def scored_turns(dialogues: Iterable[Mapping[str, Any]]) -> dict[Key, Mapping[str, Any]]:
    """{(dialogue_id, turn_id): turn} for every reference system recommend/compare turn."""
    return {(d["dialogue_id"], t["turn_id"]): t for d in dialogues for t in d["turns"]
            if t["role"] == "system" and t["action"] in REC_ACTIONS}


def check_prediction(rec: Any, where: str, turns: Mapping[Key, Any], dialogue_ids: set[str], kb: KB) -> dict:
    """Validate one prediction; returns it with ``citations`` defaulted to ``[]``."""
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
        raise PredictionError(where, "turn_id", f"{rec['turn_id']} is not a system recommend/compare turn "
                                                f"of {rec['dialogue_id']}")
    for pid in rec["ranked_poi_ids"]:
        if not isinstance(pid, str) or pid not in kb.pois:
            raise PredictionError(where, "ranked_poi_ids", f"unknown POI id {pid!r}")
    citations = rec.get("citations") or []
    if not isinstance(citations, list):
        raise PredictionError(where, "citations", "expected a list")
    for c in citations:
        if not isinstance(c, dict) or not isinstance(c.get("label"), str) or not isinstance(c.get("review_id"), str):
            raise PredictionError(where, "citations", f"expected {{'label': str, 'review_id': str}}, got {c!r}")
        if c["review_id"] not in kb.reviews:
            raise PredictionError(where, "citations", f"unknown review id {c['review_id']!r}")
    return {**rec, "citations": citations}


def index_predictions(records: Iterable[tuple[str, Any]], dialogues: list[Mapping[str, Any]], kb: KB) -> dict[Key, dict]:
    """Validate ``(where, record)`` pairs and index them by ``(dialogue_id, turn_id)``."""
    turns = scored_turns(dialogues)
    ids = {d["dialogue_id"] for d in dialogues}
    out: dict[Key, dict] = {}
    for where, rec in records:
        rec = check_prediction(rec, where, turns, ids, kb)
        key = (rec["dialogue_id"], rec["turn_id"])
        if key in out:
            raise PredictionError(where, "turn_id", f"duplicate prediction for {key[0]} turn {key[1]}")
        out[key] = rec
    return out


def read_predictions(path: str | Path, dialogues: list[Mapping[str, Any]], kb: KB) -> dict[Key, dict]:
    """Read and validate a predictions JSON-lines file."""
    try:
        pairs = [(f"{path}:{lineno}", rec) for lineno, rec in iter_jsonl(path)]
    except KBFormatError as exc:
        if not Path(path).exists():
            raise FileNotFoundError(f"predictions file {path} not found") from None
        raise PredictionError(str(path), "<json>", str(exc)) from None
    return index_predictions(pairs, dialogues, kb)


def cited_texts(kb: KB, pred: Mapping[str, Any]) -> dict[str, str]:
    """{label: cited review text} for the ``[Rn]`` labels of a prediction that resolve
    (rules in :mod:`trace_crs.metrics.quotes`)."""
    labels = sorted(set(LABEL_RE.findall(pred["text"])))
    top = pred["ranked_poi_ids"][:1]
    top_reviews = [r.review_id for r in kb.reviews_of(top[0])] if top else []
    resolved = resolve_labels(labels, pred.get("citations") or [], top_reviews)
    return {lab: kb.reviews[rid].text for lab, rid in resolved.items()}
