"""The typed release layout (trace_crs.release.records): golden cases of :func:`check` and
:func:`too_deep`, each nested field's path and problem."""

from __future__ import annotations

import pytest

from trace_crs.release.records import (
    CARD,
    DIALOGUE,
    NULLABLE,
    OPTIONAL,
    REQUIRED,
    ListOf,
    Obj,
    SpecError,
    check,
    too_deep,
)

SPEC = Obj({"a": (int, REQUIRED), "b": (ListOf(str), NULLABLE), "c": (str, OPTIONAL), "d": (ListOf(Obj({"x": (int, REQUIRED)})), NULLABLE)})


@pytest.mark.parametrize("value,field,problem", [
    ({"a": 1, "b": "xy"}, ".b", "expected an array, got string"),  # a string is not read as its characters
    ({"a": 1, "b": ["x", ["y"]]}, ".b[1]", "expected string, got array"),
    ({"a": True}, ".a", "expected integer, got boolean"),
    ({"a": None}, ".a", "expected integer, got null"),
    ({}, ".a", "missing"),
    ({"a": 1, "c": None}, ".c", "expected string, got null"),  # optional: absent or typed, never null
    ({"a": 1, "d": [{"x": 1}, 5]}, ".d[1]", "expected an object, got integer"),
    ({"a": 1, "d": [{"x": 1}, {"x": "1"}]}, ".d[1].x", "expected integer, got string"),
    ([1], "", "expected an object, got array"),
])
def test_the_first_bad_field_is_named(value, field, problem):
    with pytest.raises(SpecError) as exc:
        check(value, SPEC, "")
    assert (exc.value.field, exc.value.problem) == (field, problem)


@pytest.mark.parametrize("value", [
    {"a": 1}, {"a": 1, "b": None, "d": None}, {"a": 1, "b": [], "c": "s", "d": [{"x": 2}]}, {"a": 1, "extra": [[{}]]},
])
def test_valid_values_pass(value):
    assert check(value, SPEC, "") is None


def test_dialogue_and_card_specs_type_every_field_the_import_reads():
    turn = DIALOGUE.fields["turns"][0].item
    quote = turn.fields["quotes"][0].item
    assert set(turn.fields) >= {"role", "action", "text", "referenced_poi_ids", "referenced_review_ids", "quotes"}
    assert set(quote.fields) >= {"q", "label", "review_id", "start", "end", "sha256", "span_sha256", "business_id"}
    assert set(CARD.fields["citations"][0].item.fields) >= {"label", "review_id", "start", "end", "span_sha256", "span"}


@pytest.mark.parametrize("depth,limit,deep", [(3, 3, None), (4, 3, "[0][0][0][0]"), (0, 0, None)])
def test_too_deep(depth, limit, deep):
    value: object = 1
    for _ in range(depth):
        value = [value]
    assert too_deep(value, limit) == deep


def test_too_deep_is_iterative():
    value: object = []
    for _ in range(100_000):  # far beyond the interpreter's recursion limit
        value = [value]
    assert too_deep(value, 32) is not None
