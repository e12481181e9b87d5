"""Structural checks of the release files before anything is mapped (paper Appendix H).

Every nested field is typed (:mod:`trace_crs.release.records`: a string where a list of ids
belongs is not read as its characters) and every problem is a :class:`ReleaseFormatError`
(exit 3) naming the file, the line of the field (:func:`trace_crs.release.locate.line_of`), the
dialogue and the field (``[0].turns[3].quotes[0].start``), so a bad release is fixed at its
source; a file nested too deep never reaches here (:func:`trace_crs.release.bundle.load_json_text`).  Inconsistencies
a release can carry and still be imported are :mod:`trace_crs.release.consistency`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from trace_crs.errors import DataError
from trace_crs.kb.geo import canonical_city
from trace_crs.kb.schema import POI_TYPES
from trace_crs.release.locate import line_of
from trace_crs.release.records import CARD, DIALOGUE, SpecError, check

Lines = Callable[[str], "int | None"]  # a field's path -> its line in the file (None: unknown)


class ReleaseFormatError(DataError):
    """A release record breaks the layout; names file, dialogue and field (exit 3)."""

    def __init__(
        self, path: str, dialogue_id: str | None, field_name: str, problem: str, line: int | None = None
    ) -> None:
        DataError.__init__(
            self,
            f"dialogue {dialogue_id}: {problem}" if dialogue_id else problem,
            file=path,
            line=line,
            field=field_name,
        )
        self.dialogue_id, self.problem = dialogue_id, problem

    def at_line(self, line: Lines) -> ReleaseFormatError:
        """This error with the line ``line`` gives its field (itself when it has one or none is found)."""
        if self.line is not None or self.field in (None, "<file>"):
            return self
        found = line(str(self.field))
        return (
            self
            if found is None
            else ReleaseFormatError(str(self.file), self.dialogue_id, str(self.field), self.problem, found)
        )


def _typed(value: Any, spec: Any, path: str, did: str | None, where: str, line: Lines) -> None:
    """:func:`trace_crs.release.records.check` as a :class:`ReleaseFormatError` at the field's line."""
    try:
        check(value, spec, where)
    except SpecError as exc:
        raise ReleaseFormatError(path, did, exc.field, exc.problem, line(exc.field)) from None


def _poi_type(value: str, path: str, did: str | None, field_name: str, line: Lines) -> None:
    if value not in POI_TYPES:
        raise ReleaseFormatError(
            path, did, field_name, f"{value!r} is not one of {sorted(POI_TYPES)}", line(field_name)
        )


def _scenario_values(scenario: dict[str, Any], path: str, did: str | None, prefix: str, line: Lines) -> None:
    """The POI type is one of the KB's three; the city one of the 8 paper cities, rewritten to
    the KB's spelling (``kb.geo.canonical_city``: case, spaces, "St."/"Saint") so the dialogue
    and its POIs name the same city (the open set is the KB's city x type slice)."""
    _poi_type(scenario["poi_type"], path, did, prefix + "poi_type", line)
    city = canonical_city(scenario["city"])
    if city is None:
        field = prefix + "city"
        problem = f"{scenario['city']!r} is not one of the 8 paper cities"
        raise ReleaseFormatError(path, did, field, problem, line(field))
    scenario["city"] = city


def dataset_lines(data: Any, text: str | None) -> Lines:
    """Field path (``[i].turns[t]…``, as every finding names it) -> line in ``crs_dataset.json``,
    whose records are the top-level array or the ``"dialogues"`` member."""
    prefix = ".dialogues" if isinstance(data, dict) else ""
    return lambda field: line_of(text, prefix + field)


def card_lines(data: Any, text: str | None) -> Lines:
    """Field path (``[i].citations[k]…``) -> line in the card file; in a file keyed by business
    id, card ``[i]`` is the i-th key in sorted order (:func:`card_records`)."""
    keys = sorted(data) if isinstance(data, dict) else None

    def line(field: str) -> int | None:
        head, _, rest = field.partition("]")
        if keys is None or not head.startswith("[") or not head[1:].isdigit() or int(head[1:]) >= len(keys):
            return line_of(text, field)
        return line_of(text, f".{keys[int(head[1:])]}{rest}")

    return line


def dialogue_records(data: Any, path: str, text: str | None = None) -> list[dict[str, Any]]:
    """The dialogues of ``crs_dataset.json`` (a JSON array, or ``{"dialogues": [...]}``), every
    nested field typed (:data:`trace_crs.release.records.DIALOGUE`); a dialogue id seen twice
    is an error naming both positions.  ``text``: the file's text, to name the line of a field."""
    records = data.get("dialogues") if isinstance(data, dict) else data
    line = dataset_lines(data, text)
    if not isinstance(records, list):
        raise ReleaseFormatError(path, None, "<file>", "expected a JSON array of dialogues", 1)
    if not records:
        raise ReleaseFormatError(path, None, "<file>", "no dialogues (an empty release)", 1)
    seen: dict[str, int] = {}
    for i, rec in enumerate(records):
        where = f"[{i}]"
        did = rec.get("dialogue_id") if isinstance(rec, dict) and isinstance(rec.get("dialogue_id"), str) else None
        _typed(rec, DIALOGUE, path, did, where, line)
        if did in seen:
            raise ReleaseFormatError(
                path,
                did,
                f"{where}.dialogue_id",
                f"duplicate dialogue id (first at [{seen[did]}])",
                line(where),
            )
        seen[str(did)] = i
        _scenario_values(rec["scenario"], path, did, f"{where}.scenario.", line)
    return records


def card_records(data: Any, path: str, text: str | None = None) -> list[dict[str, Any]]:
    """The per-POI cards of ``poi_knowledge_base.json`` (a JSON array, or an object keyed by
    business id, read in key order as ``[0]``, ``[1]``, …), every nested field typed
    (:data:`trace_crs.release.records.CARD`); an empty card file is an error (a release names
    its POIs).  ``text``: the file's text, to name the line of a field."""
    keys = sorted(data) if isinstance(data, dict) else None
    line = card_lines(data, text)
    if isinstance(data, dict):
        for i, key in enumerate(keys or []):
            if not isinstance(data[key], dict):
                problem = f"card {key!r}: expected an object, got {type(data[key]).__name__}"
                raise ReleaseFormatError(path, None, f"[{i}]", problem, line(f"[{i}]"))
        cards: Any = [{"business_id": k, **data[k]} for k in keys or []]
    else:
        cards = data
    if not isinstance(cards, list):
        raise ReleaseFormatError(path, None, "<file>", "expected a JSON array of POI cards", 1)
    if not cards:
        raise ReleaseFormatError(path, None, "<file>", "no POI cards (an empty card file)", 1)
    seen: set[str] = set()
    for i, card in enumerate(cards):
        _typed(card, CARD, path, None, f"[{i}]", line)
        if card["business_id"] in seen:
            problem = f"duplicate card {card['business_id']!r}"
            raise ReleaseFormatError(path, None, f"[{i}].business_id", problem, line(f"[{i}]"))
        seen.add(card["business_id"])
        if card.get("poi_type") is not None:
            _poi_type(card["poi_type"], path, None, f"[{i}].poi_type", line)
    return cards


@contextmanager
def located(lines: dict[str, Lines]) -> Iterator[None]:
    """Re-raise a :class:`ReleaseFormatError` of a file in ``lines`` (path -> its locator) with the
    line of its field (:meth:`ReleaseFormatError.at_line`)."""
    try:
        yield
    except ReleaseFormatError as exc:
        raise exc.at_line(lines.get(str(exc.file), lambda _field: None)) from None
