"""The labels database knows which items file it served (trace_crs.human.store.open_store):
``human serve`` records the items file's SHA-256 when it creates the database, ``serve`` and
``export`` refuse another items file (exit 3, naming both hashes), and a file that is not a labels
database is a data error, never a traceback or a schema written into it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.errors import DataError
from trace_crs.human.store import LabelStore, open_store, read_items

ITEMS = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _resampled(tmp_path: Path) -> Path:
    """The same item ids over other dialogues: what a second ``human sample`` with another seed gives."""
    rows = [json.loads(line) for line in ITEMS.read_text().splitlines()]
    for r in rows:
        r["dialogue_id"] = "other-" + str(r.get("dialogue_id"))
    out = tmp_path / "items2.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_the_database_records_the_items_file_it_was_created_for(tmp_path):
    store = open_store(tmp_path / "l.sqlite", ITEMS, create=True)
    assert store.items_sha256 == _sha(ITEMS)
    assert open_store(tmp_path / "l.sqlite", ITEMS, create=False).items_sha256 == _sha(ITEMS)


@pytest.mark.parametrize("create", [True, False])
def test_another_items_file_is_refused_naming_both_hashes(tmp_path, create):
    open_store(tmp_path / "l.sqlite", ITEMS, create=True).add_annotators(["A1"])
    other = _resampled(tmp_path)
    before = (tmp_path / "l.sqlite").read_bytes()
    with pytest.raises(DataError) as exc:
        open_store(tmp_path / "l.sqlite", other, create=create)
    assert _sha(ITEMS) in str(exc.value) and _sha(other) in str(exc.value) and exc.value.exit_code == 3
    assert (tmp_path / "l.sqlite").read_bytes() == before


def test_export_with_a_resampled_items_file_exits_3_and_writes_nothing(tmp_path, capsys):
    store = open_store(tmp_path / "l.sqlite", ITEMS, create=True)
    tok = store.add_annotators(["A1"])["A1"]
    store.save("A1", "t2-000", "pois", ["p1"])
    assert tok
    other = _resampled(tmp_path)
    out = tmp_path / "labels.jsonl"
    code = main(["human", "export", "--items", str(other), "--labels-db", str(store.db), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3 and "items_sha256" in err and _sha(other) in err
    assert not out.exists()


def test_export_opens_the_database_read_only(tmp_path):
    store = open_store(tmp_path / "l.sqlite", ITEMS, create=True)
    store.add_annotators(["A1"])
    store.save("A1", "t2-000", "pois", ["p1"])
    db = store.db
    for side in ("-wal", "-shm"):  # a cleanly stopped server leaves none
        Path(str(db) + side).unlink(missing_ok=True)
    before = db.read_bytes()
    db.chmod(0o444)
    try:
        assert main(["human", "export", "--items", str(ITEMS), "--labels-db", str(db),
                     "--out", str(tmp_path / "x.jsonl")]) == 0
    finally:
        db.chmod(0o644)
    assert db.read_bytes() == before


def test_a_database_from_before_provenance_exports_with_a_warning(tmp_path, capsys):
    LabelStore(tmp_path / "old.sqlite", read_items(ITEMS)).add_annotators(["A1"])  # no items hash recorded
    with sqlite3.connect(tmp_path / "old.sqlite") as con:
        con.execute("DROP TABLE meta")
    assert main(["human", "export", "--items", str(ITEMS), "--labels-db", str(tmp_path / "old.sqlite"),
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    assert "records no items file" in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"", b"not a database at all\n", b"SQLite format 3\x00" + b"\x00" * 84])
def test_a_file_that_is_not_a_labels_database_is_exit_3_and_untouched(tmp_path, capsys, content):
    db = tmp_path / "labels.sqlite"
    db.write_bytes(content)
    code = main(["human", "export", "--items", str(ITEMS), "--labels-db", str(db), "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert str(db) in err and err.count("\n") == 1
    assert db.read_bytes() == content  # no schema written into it


def test_an_sqlite_database_of_something_else_is_refused(tmp_path):
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (x)")
    before = db.read_bytes()
    for create in (True, False):
        with pytest.raises(DataError, match="without the labels tables"):
            open_store(db, ITEMS, create=create)
    assert db.read_bytes() == before


def test_serve_creates_from_an_empty_file(tmp_path):
    db = tmp_path / "new.sqlite"
    db.write_bytes(b"")
    assert open_store(db, ITEMS, create=True).items_sha256 == _sha(ITEMS)


@pytest.mark.parametrize("rec,field", [
    ({"item_id": "a", "task": "t1", "dialogue_id": "d", "quotes": "abc"}, "quotes"),
    ({"item_id": "a", "task": "t1", "dialogue_id": "d", "quotes": [["q"]]}, "quotes"),
    ({"item_id": "a", "task": "t2", "dialogue_id": "d", "candidates": "x"}, "candidates"),
    ({"item_id": "a", "task": "t2", "dialogue_id": "d", "candidates": [{"poi_id": 5}]}, "candidates"),
    ({"item_id": "a", "task": "t1", "dialogue_id": ["d"]}, "dialogue_id"),
])
def test_items_with_mistyped_fields_are_refused_at_their_line(tmp_path, rec, field):
    p = tmp_path / "items.jsonl"
    p.write_text(json.dumps({"item_id": "ok", "task": "t1", "dialogue_id": "d"}) + "\n" + json.dumps(rec) + "\n")
    with pytest.raises(DataError, match=rf"items.jsonl:2: field '{field}'"):
        read_items(p)


def test_a_database_sqlite_cannot_open_is_a_usage_error(tmp_path, monkeypatch):
    from trace_crs.errors import UsageError
    from trace_crs.human import store as store_module

    def refuse(*_a, **_k):  # what SQLite says of a path it cannot open or create
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(store_module.sqlite3, "connect", refuse)
    with pytest.raises(UsageError, match="cannot open the labels database"):
        open_store(tmp_path / "l.sqlite", ITEMS, create=True)
