"""Labels and key of one sample (trace_crs.human.study.same_items): ``human sample`` writes the
items file's SHA-256 into every key line, ``human export`` copies the database's into every
label, and ``human agree`` refuses labels and a key of different items files (exit 3, both
hashes named); either side without a hash is not compared (older files), with a warning."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.human.store import open_store

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"
A, B = "a" * 64, "b" * 64


def _with_hash(src: Path, dst: Path, digest: str | None) -> Path:
    rows = [json.loads(x) for x in src.read_text().splitlines()]
    dst.write_text("".join(json.dumps({**r, **({"items_sha256": digest} if digest else {})}) + "\n" for r in rows))
    return dst


@pytest.mark.parametrize("labels_hash,key_hash,code", [(A, A, 0), (A, B, 3), (None, B, 0), (A, None, 0)])
def test_agree_compares_the_items_files_of_labels_and_key(tmp_path, capsys, labels_hash, key_hash, code):
    labels = _with_hash(FIX / "labels.jsonl", tmp_path / "l.jsonl", labels_hash)
    key = _with_hash(FIX / "key.jsonl", tmp_path / "k.jsonl", key_hash)
    argv = ["human", "agree", "--labels", str(labels), "--key", str(key), "--n-boot", "20", "--quiet",
            "--out", str(tmp_path / "out")]
    assert main(argv) == code
    err = capsys.readouterr().err
    if code:
        assert "field 'items_sha256'" in err and A in err and B in err
        assert not (tmp_path / "out").exists()
    unhashed = labels if labels_hash is None else key if key_hash is None else None
    assert (f"{unhashed} records no items file" in err) == (unhashed is not None)   # said, when not comparable


def test_export_copies_the_items_hash_into_every_label(tmp_path):
    items = FIX / "items.jsonl"
    store = open_store(tmp_path / "l.sqlite", items, create=True)
    store.add_annotators(["A1"])
    store.save("A1", "t2-000", "pois", ["p1"])
    assert main(["human", "export", "--items", str(items), "--labels-db", str(store.db),
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    rec = json.loads((tmp_path / "x.jsonl").read_text())
    assert rec["items_sha256"] == hashlib.sha256(items.read_bytes()).hexdigest()
