"""The typed layout of the release files, every nested field (paper Appendix H): what
:mod:`trace_crs.release.checks` holds each record of ``crs_dataset.json`` and each card of
``poi_knowledge_base.json`` to before anything is read from them.

A spec is a type (or tuple of types; ``bool`` is never an ``int`` here), :class:`ListOf` or
:class:`Obj`, whose fields are ``(spec, presence)``: ``REQUIRED`` (present, not null),
``OPTIONAL`` (absent, or present and typed: the importer tests presence, as of a checksum) or
``NULLABLE`` (absent, null or typed).  Keys a spec does not name are left alone (they are counted
as unconsumed in the mapping report).  :func:`check` raises :class:`SpecError` (field path and
problem) at the first field that breaks its spec; :func:`too_deep` bounds the nesting of a whole
file (:data:`MAX_DEPTH`), so no reader recurses without limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REQUIRED, OPTIONAL, NULLABLE = "required", "optional", "nullable"
MAX_DEPTH = 32  # a release record is 6 deep (array > dialogue > turns > turn > quotes > quote)
NUMBER = (int, float)


@dataclass(frozen=True)
class ListOf:
    """A JSON array whose every element meets ``item``."""

    item: Any


@dataclass(frozen=True)
class Obj:
    """A JSON object; ``fields``: name -> (spec, presence)."""

    fields: dict[str, tuple[Any, str]]


class SpecError(Exception):
    """Where (a field path such as ``[3].turns[2].quotes[0].start``) and what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


QUOTE = Obj(
    {
        "q": (int, REQUIRED),
        "label": (str, REQUIRED),
        "review_id": (str, REQUIRED),
        "start": (int, REQUIRED),
        "end": (int, REQUIRED),
        "sha256": (str, OPTIONAL),
        "span_sha256": (str, OPTIONAL),
        "business_id": (str, OPTIONAL),
    }
)
TURN = Obj(
    {
        "turn_id": (int, OPTIONAL),
        "role": (str, REQUIRED),
        "action": (str, REQUIRED),
        "text": (str, REQUIRED),
        "referenced_poi_ids": (ListOf(str), NULLABLE),
        "referenced_review_ids": (ListOf(str), NULLABLE),
        "quotes": (ListOf(QUOTE), NULLABLE),
    }
)
DIALOGUE = Obj(
    {
        "dialogue_id": (str, REQUIRED),
        "scenario": (
            Obj(
                {
                    "persona_type": (str, REQUIRED),
                    "city": (str, REQUIRED),
                    "poi_type": (str, REQUIRED),
                    "persona": (str, NULLABLE),
                    "context": (str, NULLABLE),
                }
            ),
            REQUIRED,
        ),
        "candidate_poi_ids": (ListOf(str), REQUIRED),
        "turns": (ListOf(TURN), REQUIRED),
        "metadata": (
            Obj(
                {
                    "difficulty": (str, REQUIRED),
                    "generation_time": ((str, int, float), NULLABLE),
                    "generator": (str, NULLABLE),
                    "model": (str, NULLABLE),
                    "seed": (int, NULLABLE),
                    "retries": (int, NULLABLE),
                }
            ),
            REQUIRED,
        ),
    }
)
CITATION = Obj(
    {
        "label": (str, REQUIRED),
        "review_id": (str, REQUIRED),
        "start": (int, REQUIRED),
        "end": (int, REQUIRED),
        "span_sha256": (str, OPTIONAL),
        "span": (str, OPTIONAL),
    }
)
CARD = Obj(
    {
        "business_id": (str, REQUIRED),
        "poi_type": (str, NULLABLE),
        "citations": (ListOf(CITATION), NULLABLE),
        "name": (str, NULLABLE),
        "address": (str, NULLABLE),
        "city": (str, NULLABLE),
        "latitude": (NUMBER, NULLABLE),
        "longitude": (NUMBER, NULLABLE),
        "categories": (ListOf(str), NULLABLE),
        "stars": (NUMBER, NULLABLE),
        "price": ((int, str), NULLABLE),
    }
)
# a dialogue of ``dialogues release`` (our schema, quotes as pointers; ``dialogues hydrate`` reads it)
RELEASED_DIALOGUE = Obj(
    {
        "dialogue_id": (str, REQUIRED),
        "turns": (
            ListOf(
                Obj(
                    {
                        "turn_id": (int, REQUIRED),
                        "text": (str, REQUIRED),
                        "citations": (
                            ListOf(
                                Obj(
                                    {
                                        "q": (int, REQUIRED),
                                        "label": (str, REQUIRED),
                                        "review_id": (str, REQUIRED),
                                        "sha256": (str, REQUIRED),
                                        "start": (int, REQUIRED),
                                        "end": (int, REQUIRED),
                                    }
                                )
                            ),
                            REQUIRED,
                        ),
                    }
                )
            ),
            REQUIRED,
        ),
    }
)
_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean"}


def _name(t: Any) -> str:
    if isinstance(t, tuple):
        return " or ".join(_name(x) for x in t)
    if isinstance(t, ListOf):
        return "array"
    if isinstance(t, Obj):
        return "object"
    return _JSON_NAMES.get(t, getattr(t, "__name__", str(t)))


def _got(value: Any) -> str:
    return "null" if value is None else _JSON_NAMES.get(type(value), type(value).__name__)


def check(value: Any, spec: Any, where: str) -> None:
    """Raise :class:`SpecError` at the first field of ``value`` that does not meet ``spec``."""
    if isinstance(spec, Obj):
        if not isinstance(value, dict):
            raise SpecError(where, f"expected an object, got {_got(value)}")
        for name, (sub, presence) in spec.fields.items():
            here = f"{where}.{name}"
            if name not in value:
                if presence == REQUIRED:
                    raise SpecError(here, "missing")
                continue
            if value[name] is None and presence == NULLABLE:
                continue
            check(value[name], sub, here)
    elif isinstance(spec, ListOf):
        if not isinstance(value, list):
            raise SpecError(where, f"expected an array, got {_got(value)}")
        for k, item in enumerate(value):
            check(item, spec.item, f"{where}[{k}]")
    else:
        types = spec if isinstance(spec, tuple) else (spec,)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise SpecError(where, f"expected {_name(spec)}, got {_got(value)}")


def too_deep(data: Any, limit: int = MAX_DEPTH) -> str | None:
    """The path of the first value nested deeper than ``limit`` levels, None when none is
    (iterative: a hostile file cannot exhaust the stack here)."""
    found = bad_value(data, limit)
    return found[0] if found and found[1] == "deep" else None


def bad_value(data: Any, limit: int = MAX_DEPTH) -> tuple[str, str] | None:
    """``(path, "deep")`` for the first value nested deeper than ``limit`` levels, ``(path,
    "surrogate")`` for the first string (or key) holding a lone UTF-16 surrogate (JSON's
    ``"\\ud800"`` escape: no UTF-8 writer can write it back), None for neither."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > limit:
            return where or "<file>", "deep"
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return where or "<file>", "surrogate"
        elif isinstance(value, dict):
            for k in value:
                try:
                    k.encode("utf-8")
                except UnicodeEncodeError:
                    return f"{where}.{k!r}", "surrogate"
            stack.extend((v, f"{where}.{k}", depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
    return None
