"""The import's mapping report: every field of :data:`official.FIELDS` with how many release
records carried it, and every release key the mapping did not consume (nothing is dropped
silently)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.release.official import FIELDS

# Release keys the mapping reads, per level (anything else is reported as unconsumed).
CONSUMED: dict[str, set[str]] = {
    "dialogue": {"dialogue_id", "scenario", "candidate_poi_ids", "turns", "metadata"},
    "scenario": {"persona_type", "persona", "context", "city", "poi_type"},
    "metadata": {"difficulty", "generation_time", "generator", "model", "seed", "retries"},
    "turn": {"turn_id", "role", "text", "action", "referenced_poi_ids", "referenced_review_ids", "quotes"},
    "quote": {"q", "label", "business_id", "review_id", "start", "end", "sha256", "span_sha256"},
}


def _present(rec: dict[str, Any], source: str) -> tuple[int, int]:
    """``(units, present)`` of one source path in one release dialogue."""
    head, _, rest = source.partition(".")
    if head == "turns":
        turns = rec["turns"]
        return len(turns), sum(t.get(rest) is not None for t in turns)
    if rest:
        return 1, int((rec.get(head) or {}).get(rest) is not None)
    return 1, int(rec.get(head) is not None)


def coverage(records: list[dict[str, Any]], split_listed: int) -> list[dict[str, Any]]:
    """Each mapping row with ``units`` (dialogues, or turns for ``turns.*``) and ``present``
    (how many of them the release carried; the rest were filled as the row's note says)."""
    rows = []
    for row in FIELDS:
        source = row["source"]
        if source == "-":
            units = sum(len(r["turns"]) for r in records) if row["field"].startswith("turns.") else len(records)
            present = 0
        elif source.startswith("splits/"):
            units, present = len(records), split_listed
        elif row["field"] == "turns.gold_poi_ids":
            units = present = sum(t["action"] in REC_ACTIONS for r in records for t in r["turns"])
        else:
            pairs = [_present(r, source) for r in records]
            units, present = sum(u for u, _ in pairs), sum(p for _, p in pairs)
        rows.append({**row, "units": units, "present": present})
    return rows


def unconsumed(records: list[dict[str, Any]]) -> dict[str, int]:
    """Release keys outside :data:`CONSUMED`, as ``level.key: count``."""
    seen: Counter = Counter()

    def note(level: str, obj: Any) -> None:
        if isinstance(obj, dict):
            seen.update(f"{level}.{k}" for k in obj if k not in CONSUMED[level])

    for r in records:
        note("dialogue", r)
        note("scenario", r.get("scenario"))
        note("metadata", r.get("metadata"))
        for t in r["turns"]:
            note("turn", t)
            for q in t.get("quotes") or []:
                note("quote", q)
    return dict(sorted(seen.items()))
