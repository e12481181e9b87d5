"""One dialogue between our schema (``dialogues/dialogue.schema.json``) and the release record.

The release record (paper Appendix H: ``dialogue_id``, ``scenario`` (persona/city/POI type),
``candidate_poi_ids``, ``turns`` with ``role``, ``text``, ``action``, ``referenced_poi_ids``,
``referenced_review_ids``, and ``metadata`` with difficulty tier and generation time) carries
every verbatim span as a ``"[Q:N]" [Rn]`` placeholder (§2.1 Release) plus, per turn, a
``quotes`` list of pointers ``{q, label, business_id, review_id, start, end, sha256,
span_sha256}``: ``sha256`` is the SHA256 of the cited review's text as the KB holds it (first
500 characters, Appendix D), ``span_sha256`` that of ``text[start:end]``, so a shifted offset is
caught as well as an edited review.  The placeholder convention and the hydration step are
``dialogues/release.py``'s; this module only renames fields.

:data:`FIELDS` (the data file ``release/field_map.yaml``) is the one statement of the mapping:
each of our fields, where it comes from in the release, and its status — ``mapped`` (copied),
``derived`` (computed from release fields), ``kb`` (computed from the imported KB) or ``absent``
(the release does not carry it; the import fills an empty value, never an invented one).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, TypedDict

import yaml

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.release import release_dialogue
from trace_crs.dialogues.schema import REC_ACTIONS, Dialogue
from trace_crs.errors import DataError
from trace_crs.kb.store import KB


class FieldMap(TypedDict):
    """One row of the mapping: our field, the release's source, status, note."""

    field: str
    source: str
    status: str
    note: str


STATUSES = ("mapped", "derived", "kb", "absent")
FIELD_MAP = Path(__file__).with_name("field_map.yaml")


def load_fields(path: Path = FIELD_MAP) -> tuple[FieldMap, ...]:
    """The mapping rows of ``path`` (``release/field_map.yaml``), in order; a row with another key
    set or an unknown status is a DataError naming the file and row."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: list[FieldMap] = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not {"field", "source", "status"} <= set(row) <= set(FieldMap.__annotations__):
            raise DataError(f"row {i}: needs field, source, status (and an optional note): {row!r}", file=str(path))
        if row["status"] not in STATUSES:
            raise DataError(f"row {i}: status {row['status']!r} is not one of {', '.join(STATUSES)}", file=str(path))
        note = str(row.get("note", "")).replace("{seed}", str(DEFAULT_SEED))
        out.append({"field": row["field"], "source": row["source"], "status": row["status"], "note": note})
    return tuple(out)


FIELDS: tuple[FieldMap, ...] = load_fields()
# Fields an export -> import round trip must reproduce byte for byte.
ROUND_TRIP: tuple[str, ...] = tuple(f["field"] for f in FIELDS if f["status"] in ("mapped", "derived"))
EMPTY_PREFERENCES: dict[str, Any] = {
    "style": None,
    "price_max": None,
    "noise": None,
    "ambience": [],
    "features": [],
    "anchor": None,
}
METADATA_DEFAULTS: dict[str, Any] = {"generator": "llm", "model": None, "seed": DEFAULT_SEED, "retries": 0}


def span_sha256(text: str) -> str:
    """SHA256 (hex) of a cited span, UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_official(d: Dialogue, kb: KB) -> dict[str, Any]:
    """The release record of one of our dialogues (placeholders via ``release_dialogue``)."""
    released = release_dialogue(d, kb)
    turns = []
    for turn, ours in zip(released["turns"], d["turns"], strict=False):
        quotes = [
            {**p, "business_id": kb.reviews[p["review_id"]].business_id, "span_sha256": span_sha256(c["quote"])}
            for p, c in zip(turn["citations"], ours["citations"], strict=False)
        ]
        turns.append(
            {k: turn[k] for k in ("turn_id", "role", "text", "action", "referenced_poi_ids", "referenced_review_ids")}
            | {"quotes": quotes}
        )
    sc = d["scenario"]
    meta = {k: d["metadata"].get(k) for k in METADATA_DEFAULTS}
    meta |= {"difficulty": sc["difficulty"].capitalize(), "generation_time": d["metadata"].get("generation_time")}
    return {
        "dialogue_id": d["dialogue_id"],
        "scenario": {k: sc[k] for k in ("persona_type", "persona", "context", "city", "poi_type")},
        "candidate_poi_ids": list(d["candidate_poi_ids"]),
        "turns": turns,
        "metadata": meta,
    }


def from_official(rec: dict[str, Any], split: str) -> dict[str, Any]:
    """Our record of one release dialogue, citations still as pointers (hydrate next); the
    ``kb`` fields (pools, open set, KB identity) are filled by the importer."""
    sc, meta = rec["scenario"], rec.get("metadata") or {}
    turns = []
    for i, t in enumerate(rec["turns"], start=1):
        turn = {
            "turn_id": t.get("turn_id", i),
            "role": t["role"],
            "action": t["action"],
            "text": t["text"],
            "referenced_poi_ids": list(t.get("referenced_poi_ids") or []),
            "referenced_review_ids": list(t.get("referenced_review_ids") or []),
            "citations": [
                {k: p.get(k) for k in ("label", "review_id", "q", "start", "end", "sha256")}
                for p in t.get("quotes") or []
            ],
        }
        if t["action"] in REC_ACTIONS:
            turn |= {"gold_poi_ids": list(turn["referenced_poi_ids"]), "acceptable_alternative_poi_ids": []}
        turns.append(turn)
    metadata = {k: meta.get(k, v) for k, v in METADATA_DEFAULTS.items()}
    if meta.get("generation_time") is not None:
        metadata["generation_time"] = meta["generation_time"]
    return {
        "dialogue_id": rec["dialogue_id"],
        "scenario": {
            "persona_type": sc["persona_type"],
            "persona": sc.get("persona") or "",
            "context": sc.get("context") or "",
            "city": sc["city"],
            "poi_type": sc["poi_type"],
            "difficulty": str(meta["difficulty"]).lower(),
            "hidden_preferences": dict(EMPTY_PREFERENCES),
        },
        "candidate_poi_ids": list(rec["candidate_poi_ids"]),
        "turns": turns,
        "split": split,
        "metadata": metadata,
    }


def project(d: dict[str, Any], fields: tuple[str, ...] = ROUND_TRIP) -> dict[str, Any]:
    """``d`` restricted to ``fields`` (dotted paths; ``turns.x`` applies to every turn)."""
    out: dict[str, Any] = {}
    for path in fields:
        head, _, rest = path.partition(".")
        if head not in d:
            continue
        if not rest:
            out[head] = d[head]
        elif head == "turns":
            out.setdefault("turns", [{} for _ in d["turns"]])
            for o, t in zip(out["turns"], d["turns"], strict=False):
                if rest in t:
                    o[rest] = t[rest]
        elif rest in d[head]:
            out.setdefault(head, {})[rest] = d[head][rest]
    return out
