"""The dialogue JSON-lines format (ARCHITECTURE.md §2, paper Appendix H) and its loader.

Every line is one dialogue validated against ``dialogue.schema.json``; a malformed line raises
:class:`DialogueFormatError` naming the file, the line, the dialogue id and the field.

Schema validation costs about 10 ms per dialogue (jsonschema), which at paper scale made every
``trace-crs score`` spend minutes re-checking the same corpus.  ``trace-crs dialogues validate``
therefore records what it checked beside the file (``<file>.validated.json``: the SHA256 of the
file's bytes and of the schema); a loader skips the per-record check only when both still match,
so a corpus that changed by one byte, or a new schema, is checked in full again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

import jsonschema

from trace_crs.atomic import recover

# The citation convention of every response (ARCHITECTURE §3), ``"span" [Rn]``, and the one reader
# of quotes as systems write them live in :mod:`trace_crs.dialogues.quote_reader`.
from trace_crs.dialogues.quote_reader import LABEL_RE, QUOTE_RE, Quote, parse_quotes  # noqa: F401 (re-exported)
from trace_crs.errors import DataError
from trace_crs.kb.schema import KBFormatError, MissingInputError, bad_id
from trace_crs.kb.store import iter_jsonl, sha256_file

USER_ACTIONS: tuple[str, ...] = ("greet_and_seek", "provide_preference", "reject_and_refine", "accept")
SYSTEM_ACTIONS: tuple[str, ...] = ("ask_preference", "recommend", "compare", "farewell")
ABSTAIN_ACTION = "abstain"  # the reference act of an unsolvable-set item (dialogues/unsolvable.py); never generated
REC_ACTIONS: tuple[str, ...] = ("recommend", "compare")
TIERS: tuple[str, ...] = ("easy", "medium", "hard", "expert")


@dataclass(frozen=True)
class Span:
    """A verbatim review span: ``quote == review.text[start:end]`` of review ``review_id``."""

    review_id: str
    start: int
    end: int
    quote: str


SPLITS: tuple[str, ...] = ("train", "val", "test")


# The records of ``dialogue.schema.json`` as types (ARCHITECTURE §2): what a loaded corpus holds
# when it crosses into the baselines, metrics and runner layers.  The schema is the validator;
# these only name the keys.
class Citation(TypedDict):
    """One citation of a reference turn: ``review.text[start:end] == quote``."""

    label: str
    review_id: str
    quote: str
    start: int
    end: int


class Turn(TypedDict):
    """One turn; system recommend/compare turns also carry the gold and acceptable alternatives."""

    turn_id: int
    role: str
    action: str
    text: str
    referenced_poi_ids: list[str]
    referenced_review_ids: list[str]
    citations: list[Citation]
    gold_poi_ids: NotRequired[list[str]]
    acceptable_alternative_poi_ids: NotRequired[list[str]]


class Dialogue(TypedDict):
    """One line of a dialogues file (``scenario`` and ``metadata`` as in the schema)."""

    dialogue_id: str
    scenario: dict[str, Any]
    candidate_poi_ids: list[str]
    expanded_pool_poi_ids: dict[str, list[str]]
    open_set_poi_ids: list[str]
    turns: list[Turn]
    split: str
    metadata: dict[str, Any]
    unsolvable: NotRequired[dict[str, Any]]


class DialogueFormatError(DataError):
    """A dialogue record is malformed; the message names file, line, dialogue id and field (exit 3)."""

    def __init__(self, path: str, line: int | None, dialogue_id: str | None, field_name: str, problem: str):
        where = f"{path}:{line}" if line is not None else path
        ValueError.__init__(self, f"{where}: dialogue {dialogue_id or '?'}: field '{field_name}': {problem}")
        self.file, self.field = path, field_name
        self.path, self.line, self.dialogue_id, self.field_name = path, line, dialogue_id, field_name


@lru_cache(maxsize=1)
def dialogue_schema() -> dict[str, Any]:
    """The JSON Schema of one dialogue (``dialogues/dialogue.schema.json``)."""
    return json.loads(resources.files("trace_crs.dialogues").joinpath("dialogue.schema.json").read_text())


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(dialogue_schema())


def check_dialogue(rec: Any, path: str = "<memory>", line: int | None = None) -> Dialogue:
    """Validate one record against the schema; return it or raise :class:`DialogueFormatError`."""
    did = rec.get("dialogue_id") if isinstance(rec, dict) else None
    errors = sorted(_validator().iter_errors(rec), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        field = "/".join(str(p) for p in err.absolute_path) or "<record>"
        raise DialogueFormatError(path, line, did if isinstance(did, str) else None, field, err.message[:200])
    problem = _value_problem(rec)
    if problem:
        raise DialogueFormatError(path, line, did, problem[0], problem[1])
    return cast(Dialogue, rec)  # the schema just checked every key Dialogue names


def _value_problem(rec: dict[str, Any]) -> tuple[str, str] | None:
    """What the JSON schema cannot say: ids visible and non-blank, anchor coordinates finite and
    on the globe (NaN or 999 latitudes passed the schema and then flipped live outcomes)."""
    ids = [("dialogue_id", rec["dialogue_id"])] + [
        (f"candidate_poi_ids/{k}", v) for k, v in enumerate(rec.get("candidate_poi_ids") or [])
    ]
    for field, value in ids:
        if bad_id(value):
            return field, f"blank or invisible characters in id {value!r}"
    anchor = ((rec.get("scenario") or {}).get("hidden_preferences") or {}).get("anchor")
    if isinstance(anchor, dict):
        for key, low, high in (("latitude", -90.0, 90.0), ("longitude", -180.0, 180.0), ("max_km", 0.0, 20_000.0)):
            v = anchor.get(key)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and low <= v <= high):
                return (
                    f"scenario/hidden_preferences/anchor/{key}",
                    f"{v!r} is not a finite number in [{low:g}, {high:g}]",
                )
    return None


def dialogue_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line number, record)`` of a JSON-lines file, not yet validated; a malformed line or a
    missing file raises :class:`DialogueFormatError`."""
    try:
        yield from iter_jsonl(path)
    except MissingInputError:  # a path that does not exist is a usage error, not bad data
        raise
    except KBFormatError as exc:  # malformed JSON from the shared reader
        raise DialogueFormatError(exc.path, exc.line, None, exc.field_name, str(exc).split(": ", 2)[-1]) from None


def validation_record_path(path: str | Path) -> Path:
    """Where ``trace-crs dialogues validate`` records a passed check: ``<file>.validated.json``."""
    return Path(f"{path}.validated.json")


def _fingerprint(path: str | Path) -> dict[str, str]:
    schema = json.dumps(dialogue_schema(), sort_keys=True).encode()
    return {"sha256": sha256_file(path), "schema_sha256": hashlib.sha256(schema).hexdigest()}


def record_validated(path: str | Path) -> bool:
    """Record that ``path``, as its bytes are now, passed validation (atomic write); returns
    False, writing nothing, when the input's directory is read-only (the record is only a
    shortcut for later loads, never needed)."""
    record = validation_record_path(path)
    tmp = record.with_name(record.name + ".tmp")
    try:
        tmp.write_text(json.dumps(_fingerprint(path), sort_keys=True) + "\n")
        tmp.replace(record)
    except PermissionError:
        tmp.unlink(missing_ok=True) if tmp.parent.exists() and os.access(tmp.parent, os.W_OK) else None
        return False
    return True


def is_recorded_valid(path: str | Path) -> bool:
    """True when a validation record exists and matches the file's bytes and the schema."""
    record = validation_record_path(path)
    try:
        return json.loads(record.read_text()) == _fingerprint(path)
    except (OSError, ValueError):
        return False


def iter_dialogues(path: str | Path, trust_record: bool = True) -> Iterator[Dialogue]:
    """Yield validated dialogues of a JSON-lines file, in file order (the per-record schema check
    is skipped when ``trust_record`` and :func:`is_recorded_valid`); a dialogue id seen twice is
    an error (it would be scored twice)."""
    checked = not (trust_record and is_recorded_valid(path))
    seen: set[str | None] = set()
    for lineno, rec in dialogue_lines(path):
        # unchecked only when the file's validation record vouches for every line
        dialogue = check_dialogue(rec, str(path), lineno) if checked else cast(Dialogue, rec)
        did = dialogue.get("dialogue_id") if isinstance(dialogue, dict) else None
        if did in seen:
            raise DialogueFormatError(str(path), lineno, did, "dialogue_id", "duplicate (seen on an earlier line)")
        seen.add(did)
        yield dialogue


def load_dialogues(path: str | Path, trust_record: bool = True) -> list[Dialogue]:
    """All validated dialogues of a file (raises on the first malformed line; an empty file is
    a data error: "0 passed" of nothing must not be recorded as a validated corpus)."""
    out = list(iter_dialogues(recover(path), trust_record))  # rolls forward a killed commit
    if not out:
        raise DataError("no dialogues (an empty corpus)", file=str(path), field="<file>")
    return out
