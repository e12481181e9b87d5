"""``human export --csv`` neutralises cells a spreadsheet would run as formulas (OWASP's CSV
injection rule: a leading ``'`` before ``=``, ``+``, ``-``, ``@``, tab, return, and before ``'``
itself), and ``human agree`` / ``read_labels`` read the original text back."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.human.labels import csv_cell, read_labels
from trace_crs.human.store import open_store

ITEMS = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"
HOSTILE = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "'=already", "'plain", "fine", ""]


@pytest.mark.parametrize("text,cell", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("'x", "''x"), ("a=1", "a=1"), ("", ""), (3, 3), (None, None),
])
def test_csv_cell(text, cell):
    assert csv_cell(text) == cell


@pytest.mark.parametrize("comment", HOSTILE)
def test_exported_comments_never_start_a_formula_and_read_back(tmp_path, comment):
    store = open_store(tmp_path / "l.sqlite", ITEMS, create=True)
    store.add_annotators(["A1"])
    for field, value in (("errors", ["no_errors"]), ("informativeness", 3), ("naturalness", 4), ("comment", comment)):
        store.save("A1", "t1-001", field, value)
    out, sheet = tmp_path / "l.jsonl", tmp_path / "l.csv"
    assert main(["human", "export", "--items", str(ITEMS), "--labels-db", str(store.db), "--out", str(out),
                 "--csv", str(sheet)]) == 0
    with sheet.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            assert all(not v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row.values() if v)
    from_csv, _ = read_labels(sheet)
    from_jsonl, _ = read_labels(out)
    assert from_csv[0].comment == from_jsonl[0].comment == comment
