"""Label files read record by record: JSON lines, or one JSON array with each element's line."""
from __future__ import annotations

import pytest

from trace_crs.errors import DataError
from trace_crs.judge.label_file import iter_records


def records(tmp_path, text):
    p = tmp_path / "h.json"
    p.write_text(text)
    return list(iter_records(p))


def test_array_elements_with_the_line_they_open_on(tmp_path):
    text = '[\n  {"a": 1},\n\n  {"a": 2,\n   "b": [1,\n 2]}, {"a": 3}\n]\n'
    assert records(tmp_path, text) == [(2, {"a": 1}), (4, {"a": 2, "b": [1, 2]}), (6, {"a": 3})]
    assert records(tmp_path, "\ufeff[]") == []
    assert records(tmp_path, '{"a": 1}\n\n{"a": 2}\n') == [(1, {"a": 1}), (3, {"a": 2})]   # JSON lines as before


@pytest.mark.parametrize("text, line, message", [
    ('[{"a": 1},\n{"a": }]', 2, "malformed JSON"),
    ('[{"a": 1}\n {"a": 2}]', 2, "expected ',' or ']'"),
    ('[{"a": 1}]\n\nx', 3, "after the closing"),
])
def test_malformed_array_names_the_line(tmp_path, text, line, message):
    with pytest.raises(DataError, match=message) as err:
        records(tmp_path, text)
    assert err.value.line == line


def test_missing_file_is_the_jsonl_readers_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(iter_records(tmp_path / "nope.json"))
