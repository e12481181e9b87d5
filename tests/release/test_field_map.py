"""The release field mapping read from its data file (release/field_map.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_crs import DEFAULT_SEED
from trace_crs.errors import DataError
from trace_crs.release.official import FIELDS, STATUSES, load_fields


def test_every_row_has_a_known_status_and_a_unique_field() -> None:
    assert {f["status"] for f in FIELDS} <= set(STATUSES)
    names = [f["field"] for f in FIELDS]
    assert len(names) == len(set(names))


def test_the_seed_placeholder_is_filled_with_the_default_seed() -> None:
    (seed,) = [f for f in FIELDS if f["field"] == "metadata.seed"]
    assert seed["note"].startswith(f"{DEFAULT_SEED} when absent")
    assert not any("{seed}" in f["note"] for f in FIELDS)


def test_a_row_without_a_note_reads_as_an_empty_note(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text("- {field: a, source: b, status: mapped}\n- {field: c, source: '-', status: kb, note: x}\n")
    assert load_fields(path) == (
        {"field": "a", "source": "b", "status": "mapped", "note": ""},
        {"field": "c", "source": "-", "status": "kb", "note": "x"},
    )


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("- {field: a, source: b, status: copied}", "row 1: status 'copied'"),
        ("- {field: a, status: mapped}", "row 1: needs field, source, status"),
        ("- {field: a, source: b, status: mapped, comment: x}", "row 1: needs field, source, status"),
    ],
)
def test_a_bad_row_is_refused_naming_file_and_row(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "map.yaml"
    path.write_text(row + "\n")
    with pytest.raises(DataError, match=message) as err:
        load_fields(path)
    assert str(path) in str(err.value)
