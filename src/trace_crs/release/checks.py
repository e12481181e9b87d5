"""Structural checks of the release files before anything is mapped (paper Appendix H).

Every problem is a :class:`ReleaseFormatError` (exit 3) naming the file, the dialogue and the
field (``turns[3].quotes[0].start``), so a bad release is fixed at its source.  Inconsistencies
a release can carry and still be imported are :mod:`trace_crs.release.consistency`'s.
"""

from __future__ import annotations

from typing import Any

from trace_crs.errors import DataError
from trace_crs.kb.geo import canonical_city
from trace_crs.kb.schema import POI_TYPES

REQUIRED: dict[str, type | tuple[type, ...]] = {
    "dialogue_id": str,
    "scenario": dict,
    "candidate_poi_ids": list,
    "turns": list,
}
SCENARIO: tuple[str, ...] = ("persona_type", "city", "poi_type")
TURN: dict[str, type | tuple[type, ...]] = {"role": str, "action": str, "text": str}
QUOTE: dict[str, type | tuple[type, ...]] = {"q": int, "label": str, "review_id": str, "start": int, "end": int}
CHECKSUMS: tuple[str, ...] = ("sha256", "span_sha256")  # optional: a quote without them is counted unverified


class ReleaseFormatError(DataError):
    """A release record breaks the layout; names file, dialogue and field (exit 3)."""

    def __init__(self, path: str, dialogue_id: str | None, field_name: str, problem: str):
        DataError.__init__(
            self, f"dialogue {dialogue_id}: {problem}" if dialogue_id else problem, file=path, field=field_name
        )
        self.dialogue_id = dialogue_id


def _typed(rec: dict[str, Any], spec: dict[str, Any], path: str, did: str | None, prefix: str) -> None:
    for name, types in spec.items():
        value = rec.get(name)
        if name not in rec:
            raise ReleaseFormatError(path, did, prefix + name, "missing")
        if isinstance(value, bool) or not isinstance(value, types):
            raise ReleaseFormatError(
                path,
                did,
                prefix + name,
                f"expected {getattr(types, '__name__', types)}, " f"got {type(value).__name__}",
            )


def _poi_type(value: str, path: str, did: str | None, field_name: str) -> None:
    if value not in POI_TYPES:
        raise ReleaseFormatError(path, did, field_name, f"{value!r} is not one of {sorted(POI_TYPES)}")


def _scenario_values(scenario: dict[str, Any], path: str, did: str | None, prefix: str) -> None:
    """The POI type is one of the KB's three; the city one of the 8 paper cities, rewritten to
    the KB's spelling (``kb.geo.canonical_city``: case, spaces, "St."/"Saint") so the dialogue
    and its POIs name the same city (the open set is the KB's city x type slice)."""
    _poi_type(scenario["poi_type"], path, did, prefix + "poi_type")
    city = canonical_city(scenario["city"])
    if city is None:
        raise ReleaseFormatError(path, did, prefix + "city", f"{scenario['city']!r} is not one of the 8 paper cities")
    scenario["city"] = city


def dialogue_records(data: Any, path: str) -> list[dict[str, Any]]:
    """The dialogues of ``crs_dataset.json`` (a JSON array, or ``{"dialogues": [...]}``),
    checked field by field; a dialogue id seen twice is an error naming both positions."""
    records = data.get("dialogues") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise ReleaseFormatError(path, None, "<file>", "expected a JSON array of dialogues")
    if not records:
        raise ReleaseFormatError(path, None, "<file>", "no dialogues (an empty release)")
    seen: dict[str, int] = {}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise ReleaseFormatError(path, None, f"[{i}]", "expected a JSON object")
        did = rec.get("dialogue_id") if isinstance(rec.get("dialogue_id"), str) else None
        _typed(rec, REQUIRED, path, did, f"[{i}].")
        if did in seen:
            raise ReleaseFormatError(path, did, f"[{i}].dialogue_id", f"duplicate dialogue id (first at [{seen[did]}])")
        seen[str(did)] = i
        _typed(rec["scenario"], dict.fromkeys(SCENARIO, str), path, did, f"[{i}].scenario.")
        _scenario_values(rec["scenario"], path, did, f"[{i}].scenario.")
        meta = rec.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("difficulty"), str):
            raise ReleaseFormatError(path, did, f"[{i}].metadata.difficulty", "missing (the difficulty tier)")
        for t, turn in enumerate(rec["turns"]):
            if not isinstance(turn, dict):
                raise ReleaseFormatError(path, did, f"[{i}].turns[{t}]", "expected a JSON object")
            _typed(turn, TURN, path, did, f"[{i}].turns[{t}].")
            for k, q in enumerate(turn.get("quotes") or []):
                _typed(q, QUOTE, path, did, f"[{i}].turns[{t}].quotes[{k}].")
                _typed(q, {c: str for c in CHECKSUMS if c in q}, path, did, f"[{i}].turns[{t}].quotes[{k}].")
    return records


def card_records(data: Any, path: str) -> list[dict[str, Any]]:
    """The per-POI cards of ``poi_knowledge_base.json`` (a JSON array, or an object keyed by
    business id): each has a ``business_id`` and a list of ``citations`` pointers."""
    cards = [{"business_id": k, **v} for k, v in sorted(data.items())] if isinstance(data, dict) else data
    if not isinstance(cards, list):
        raise ReleaseFormatError(path, None, "<file>", "expected a JSON array of POI cards")
    seen: set[str] = set()
    for i, card in enumerate(cards):
        if not isinstance(card, dict) or not isinstance(card.get("business_id"), str):
            raise ReleaseFormatError(path, None, f"[{i}].business_id", "missing")
        if card["business_id"] in seen:
            raise ReleaseFormatError(path, None, f"[{i}].business_id", f"duplicate card {card['business_id']!r}")
        seen.add(card["business_id"])
        if card.get("poi_type") is not None:
            if not isinstance(card["poi_type"], str):
                raise ReleaseFormatError(path, None, f"[{i}].poi_type", "expected str")
            _poi_type(card["poi_type"], path, None, f"[{i}].poi_type")
        for k, p in enumerate(card.get("citations") or []):
            _typed(p, {"label": str, "review_id": str, "start": int, "end": int}, path, None, f"[{i}].citations[{k}].")
    return cards
