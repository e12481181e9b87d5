"""The annotation store: items (read-only JSON lines) and labels in SQLite (seed 000 App. K.1).

Every change in the web tool is one field of one (annotator, item), saved on its own as an
upsert into ``labels(annotator, item_id, field, value)`` — so a reload, a killed server or two
open tabs lose at most the keystrokes not yet sent.  The database runs in WAL mode with
``synchronous=FULL``; each operation opens its own connection (one writer at a time, readers
never blocked).  Annotators are identified only by their secret token; no request names an
annotator, so nobody can read or write another's labels.

Fields: Task 1 — ``quote.<i>`` (one of CITATION_LABELS, 0 ≤ i < the item's number of quotes),
``errors`` (a list of ERROR_CATEGORIES; "no_errors" alone), ``informativeness`` and
``naturalness`` (1–5), ``comment``; Task 2 — ``pois`` (up to 3 of the item's candidates) and
``sentence``.  :meth:`LabelStore.export` turns complete labels into
:mod:`trace_crs.human.labels` records (what ``human agree`` reads) and lists incomplete ones.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from trace_crs.errors import DataError, UsageError
from trace_crs.human.labels import Task1Label, Task2Label, check_value
from trace_crs.kb.store import iter_jsonl

ITEM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS annotators (token TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS labels (annotator TEXT NOT NULL, item_id TEXT NOT NULL, field TEXT NOT NULL,
  value TEXT NOT NULL, PRIMARY KEY (annotator, item_id, field));
"""


def read_items(path: str | Path) -> dict[str, dict[str, Any]]:
    """Items of ``human sample`` by id (file order kept); the fields the store and the pages index
    (``item_id``, ``task``, ``dialogue_id``, Task 1 ``quotes``, Task 2 ``candidates``) are typed,
    a bad one a DataError at its line."""
    items: dict[str, dict[str, Any]] = {}
    for line_no, rec in iter_jsonl(path):
        iid = rec.get("item_id") if isinstance(rec, dict) else None
        if not isinstance(iid, str) or not ITEM_ID.match(iid) or iid in items:
            raise DataError("missing, malformed or repeated", file=str(path), line=line_no, field="item_id")
        if rec.get("task") not in ("t1", "t2"):
            raise DataError("must be 't1' or 't2'", file=str(path), line=line_no, field="task")
        if not isinstance(rec.get("dialogue_id"), str):
            raise DataError("missing or not a string", file=str(path), line=line_no, field="dialogue_id")
        if rec["task"] == "t1" and not _list_of(rec.get("quotes", []), lambda q: isinstance(q, str)):
            raise DataError("a list of quoted texts", file=str(path), line=line_no, field="quotes")
        if rec["task"] == "t2" and not _list_of(
            rec.get("candidates", []), lambda c: isinstance(c, dict) and isinstance(c.get("poi_id"), str)
        ):
            raise DataError(
                "a list of objects with a 'poi_id' string", file=str(path), line=line_no, field="candidates"
            )
        items[iid] = rec
    if not items:
        raise DataError("no items", file=str(path))
    return items


def _list_of(value: Any, ok: Any) -> bool:
    return isinstance(value, list) and all(ok(v) for v in value)


class LabelStore:
    """Labels of one study in one SQLite file (see the module docstring).  ``items_sha256``:
    the SHA-256 of the items file ``items`` was read from, recorded in the database when it has
    none and compared with the recorded one otherwise (:func:`open_store` checks it first);
    ``readonly``: open an existing database without writing to it (``human export``)."""

    def __init__(
        self,
        db: str | Path,
        items: dict[str, dict[str, Any]],
        items_sha256: str | None = None,
        readonly: bool = False,
    ) -> None:
        self.db, self.items, self.readonly = Path(db), items, readonly
        if not readonly:
            self.db.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as con:
                con.execute("PRAGMA journal_mode=WAL")
                con.executescript(SCHEMA)
                if items_sha256 is not None:
                    con.execute("INSERT OR IGNORE INTO meta VALUES ('items_sha256', ?)", (items_sha256,))
        self.items_sha256 = self.recorded("items_sha256")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            con = sqlite3.connect(self.db.absolute().as_uri() + "?mode=ro", timeout=30, isolation_level=None, uri=True)
        else:
            con = sqlite3.connect(self.db, timeout=30, isolation_level=None)
        try:
            if not self.readonly:
                con.execute("PRAGMA synchronous=FULL")
            yield con
        finally:
            con.close()

    def recorded(self, key: str) -> str | None:
        """A provenance value the database holds (``items_sha256``), None when it has none."""
        with self._connect() as con:
            if not con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone():
                return None
            row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def add_annotators(self, names: list[str]) -> dict[str, str]:
        """``name -> token`` for each name (an existing annotator keeps their token)."""
        out = {}
        with self._connect() as con:
            for name in names:
                if not NAME.match(name):
                    raise UsageError(f"annotator name {name!r}: letters, digits, '-' and '_' (1-32)")
                con.execute("INSERT OR IGNORE INTO annotators VALUES (?, ?)", (secrets.token_urlsafe(18), name))
                out[name] = con.execute("SELECT token FROM annotators WHERE name = ?", (name,)).fetchone()[0]
        return out

    def annotator(self, token: str) -> str | None:
        """The name behind a token, None for an unknown one."""
        with self._connect() as con:
            row = con.execute("SELECT name FROM annotators WHERE token = ?", (token,)).fetchone()
        return row[0] if row else None

    def save(self, annotator: str, item_id: str, field: str, value: Any) -> Any:
        """Validate and upsert one field; returns the stored value."""
        value = check_value(self.items[item_id], field, value)
        with self._connect() as con:
            con.execute(
                "INSERT INTO labels VALUES (?, ?, ?, ?) ON CONFLICT (annotator, item_id, field) "
                "DO UPDATE SET value = excluded.value",
                (annotator, item_id, field, json.dumps(value, ensure_ascii=False)),
            )
        return value

    def fields(self, annotator: str, item_id: str | None = None) -> dict[str, dict[str, Any]]:
        """``item_id -> {field: value}`` of one annotator (one item when given)."""
        sql, args = "SELECT item_id, field, value FROM labels WHERE annotator = ?", [annotator]
        if item_id is not None:
            sql, args = sql + " AND item_id = ?", [annotator, item_id]
        out: dict[str, dict[str, Any]] = {}
        with self._connect() as con:
            for iid, field, value in con.execute(sql + " ORDER BY item_id, field", args):
                try:
                    out.setdefault(iid, {})[field] = json.loads(value)
                except (TypeError, ValueError):
                    where = f"labels[{annotator}, {iid}].{field}"
                    raise DataError(f"stored value {value!r} is not JSON", file=str(self.db), field=where) from None
        return out

    def export(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """``(complete label records, incomplete: annotator, item_id, missing fields)``, sorted."""
        with self._connect() as con:
            names = [r[0] for r in con.execute("SELECT name FROM annotators ORDER BY name")]
        done, missing = [], []
        for name in names:
            for iid, f in sorted(self.fields(name).items()):
                item = self.items.get(iid)
                if item is None:
                    missing.append({"annotator": name, "item_id": iid, "missing": ["item not in the items file"]})
                    continue
                if item["task"] == "t1":
                    need = [
                        *(f"quote.{i}" for i in range(len(item.get("quotes", [])))),
                        "errors",
                        "informativeness",
                        "naturalness",
                    ]
                else:
                    need = ["pois"]
                lack = [n for n in need if n not in f or (n in ("errors", "pois") and not f[n])]
                for n in [x for x in (*need, "comment" if item["task"] == "t1" else "sentence") if x in f]:
                    try:  # each stored value as the app would have accepted it (a hand-edited file)
                        f[n] = check_value(item, n, f[n])
                    except ValueError as exc:
                        raise DataError(str(exc), file=str(self.db), field=f"labels[{name}, {iid}].{n}") from None
                if lack:
                    missing.append({"annotator": name, "item_id": iid, "missing": lack})
                    continue
                if item["task"] == "t1":
                    rec = Task1Label(
                        task="t1",
                        annotator=name,
                        item_id=iid,
                        dialogue_id=item["dialogue_id"],
                        quotes=[f[f"quote.{i}"] for i in range(len(item.get("quotes", [])))],
                        errors=f["errors"],
                        informativeness=f["informativeness"],
                        naturalness=f["naturalness"],
                        comment=f.get("comment", ""),
                        items_sha256=self.items_sha256,
                    )
                    done.append(rec.model_dump(exclude={"baseline"}, exclude_none=True))
                else:
                    rec2 = Task2Label(
                        task="t2",
                        annotator=name,
                        dialogue_id=item["dialogue_id"],
                        pois=f["pois"],
                        sentence=f.get("sentence", ""),
                        items_sha256=self.items_sha256,
                    )
                    done.append(rec2.model_dump(exclude_none=True))
        return done, missing


def open_store(db: str | Path, items_path: str | Path, create: bool) -> LabelStore:
    """The label database ``db`` for the items of ``items_path``, checked before use: a file that
    is not an SQLite database, one without the tables ``human serve`` creates, an empty file when
    not ``create`` (``human export`` reads, never creates) and a database created for another
    items file (the SHA-256 it recorded differs: labels would be attached to the wrong items)
    are :class:`DataError` (exit 3).  ``create``: a missing or empty file becomes a new database
    recording the items file's SHA-256 (an existing database without one is left without one)."""
    from trace_crs.kb.store import sha256_file

    db, items_path = Path(db), Path(items_path)
    items = read_items(items_path)
    digest = sha256_file(items_path)
    fresh = not db.exists() or (db.is_file() and db.stat().st_size == 0)
    if fresh and not create:
        raise DataError("an empty file, not a labels database of `human serve`", file=str(db))
    if not fresh:
        with db.open("rb") as fh:
            if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                raise DataError("not an SQLite database (no SQLite header)", file=str(db))
        probe = LabelStore.__new__(LabelStore)
        probe.db, probe.readonly = db, True
        try:
            with probe._connect() as con:
                tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise DataError(f"unreadable SQLite database ({exc})", file=str(db)) from None
        if not {"annotators", "labels"} <= tables:
            raise DataError("an SQLite database without the labels tables of `human serve`", file=str(db))
        recorded = probe.recorded("items_sha256")
        if recorded is not None and recorded != digest:
            raise DataError(
                f"created for an items file with SHA-256 {recorded}, but {items_path} has SHA-256 {digest}: "
                "its labels belong to other items; give the items file the database was created with",
                file=str(db),
                field="items_sha256",
            )
    try:
        # only a database created now records the digest: one created before databases did cannot
        # say which items it served, and adopting this file's would vouch for it unchecked
        return LabelStore(db, items, items_sha256=digest if create and fresh else None, readonly=not create)
    except sqlite3.OperationalError as exc:  # a path SQLite cannot open or create (exit 2, as any OS error)
        raise UsageError(f"{db}: cannot open the labels database ({exc})") from None
