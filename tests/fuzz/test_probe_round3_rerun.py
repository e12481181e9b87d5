"""Cases the re-run of issue 47's probe still found (issue 49's helper): each a regression test
with the workspace hashed before and after."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import main
from trace_crs.human.app import create_app
from trace_crs.human.store import LabelStore, open_store, read_items

FIX = Path(__file__).resolve().parents[1] / "fixtures"
ITEMS = FIX / "human" / "items.jsonl"


@pytest.fixture()
def study(tmp_path):
    """Items, a database with one complete Task 1 label of A1 and its export."""
    items = tmp_path / "items.jsonl"
    shutil.copy(ITEMS, items)
    store = open_store(tmp_path / "labels.sqlite", items, create=True)
    store.add_annotators(["A1"])
    item = next(i for i, it in store.items.items() if it["task"] == "t1")
    for k in range(len(store.items[item].get("quotes", []))):
        store.save("A1", item, f"quote.{k}", "supported")
    for field, value in (("errors", ["no_errors"]), ("informativeness", 3), ("naturalness", 4), ("comment", "ok")):
        store.save("A1", item, field, value)
    return tmp_path, item


def _set(db: Path, field: str, raw: str) -> None:
    con = sqlite3.connect(db)
    con.execute("UPDATE labels SET value = ? WHERE field = ?", (raw, field))
    con.commit()
    con.close()


@pytest.mark.parametrize("field,raw,problem", [
    ("naturalness", "{not json", "is not JSON"),
    ("informativeness", '"abc"', "an integer 1-5"),
    ("errors", '[["x"]]', "errors: a list"),
    ("quote.0", '"maybe"', "a quote label is one of"),
])
def test_export_of_a_hand_edited_label_value_is_exit_3_naming_the_database(study, capsys, field, raw, problem):
    w, item = study
    _set(w / "labels.sqlite", field, raw)
    before = tree_hash(w)
    code = main(["human", "export", "--items", str(w / "items.jsonl"), "--labels-db", str(w / "labels.sqlite"),
                 "--out", str(w / "x.jsonl")])
    err = capsys.readouterr().err
    assert code == 3 and "labels.sqlite" in err and f"labels[A1, {item}].{field}" in err and problem in err, err
    assert {k: v for k, v in tree_hash(w).items() if not k.endswith(("-wal", "-shm"))} == {
        k: v for k, v in before.items() if not k.endswith(("-wal", "-shm"))}


def test_serving_an_old_database_with_other_items_records_no_digest(study, tmp_path, capsys):
    w, _ = study
    con = sqlite3.connect(w / "labels.sqlite")
    con.execute("DELETE FROM meta")  # a database created before databases recorded the items file
    con.commit()
    con.close()
    other = w / "other.jsonl"
    other.write_text(ITEMS.read_text() + "\n")  # another items file (another SHA-256)
    store = open_store(w / "labels.sqlite", other, create=True)
    assert store.items_sha256 is None and store.recorded("items_sha256") is None


def test_human_agree_with_a_key_sampled_without_scores_warns_not_traceback(tmp_path, capsys):
    labels = [json.loads(x) for x in (FIX / "human" / "labels.jsonl").read_text().splitlines()]
    key = [dict(json.loads(x), gs=None, cgs=None, cd=None) for x in (FIX / "human" / "key.jsonl").read_text().splitlines()]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    (tmp_path / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in key))
    code = main(["--quiet", "human", "agree", "--labels", str(tmp_path / "labels.jsonl"), "--key",
                 str(tmp_path / "key.jsonl"), "--n-boot", "20", "--out", str(tmp_path / "ag")])
    err = capsys.readouterr().err
    assert code == 0 and "holds no cgs/gs/cd value" in err, err
    key[0]["gs"] = "high"
    (tmp_path / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in key))
    assert main(["human", "agree", "--labels", str(tmp_path / "labels.jsonl"), "--key", str(tmp_path / "key.jsonl"),
                 "--out", str(tmp_path / "ag2")]) == 3
    assert "key.jsonl:1: field 'gs'" in capsys.readouterr().err


@pytest.fixture()
def client(tmp_path):
    store = LabelStore(tmp_path / "labels.sqlite", read_items(ITEMS))
    return store, store.add_annotators(["A1"])["A1"], TestClient(create_app(store))


@pytest.mark.parametrize("body", ['{"value": ' + "[" * 20000 + "]" * 20000 + "}",
                                  '{"value": ' + '{"a":' * 10000 + "1" + "}" * 10000 + "}"])
def test_json_nested_too_deep_is_a_400_not_a_500(client, body):
    store, tok, c = client
    r = c.put(f"/api/{tok}/item/t1-000/comment", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and store.fields("A1") == {}
    assert "content-security-policy" in r.headers


@pytest.mark.parametrize("field", ["quote.00", "quote.01", "quote.+1", "quote.\u0663"])
def test_a_quote_index_that_is_not_canonical_is_422(client, field):
    store, tok, c = client
    r = c.put(f"/api/{tok}/item/t1-000/{field}", json={"value": "supported"})
    assert r.status_code == 422 and store.fields("A1") == {}


def test_a_split_list_that_is_a_directory_is_refused(tmp_path, capsys):
    rel = tmp_path / "release"
    shutil.copytree(FIX / "release", rel, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (rel / "splits" / "val_dialogue_ids.json").mkdir()
    before = tree_hash(rel)
    code = main(["release", "import", "--dataset", str(rel / "crs_dataset.json"), "--pois",
                 str(rel / "poi_knowledge_base.json"), "--splits", str(rel / "splits"), "--yelp-dir", str(rel / "yelp"),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3 and "val_dialogue_ids.json" in err and "not a directory" in err
    assert tree_hash(rel) == before and not (tmp_path / "out").exists()


def test_an_empty_generic_log_is_a_data_error_naming_it(tmp_path, capsys):
    (tmp_path / "log.jsonl").write_text("")
    assert main(["judge", "transcripts", "--generic", str(tmp_path / "log.jsonl"), "--out", str(tmp_path / "t.jsonl")]) == 3
    assert "log.jsonl" in capsys.readouterr().err and not (tmp_path / "t.jsonl").exists()


def test_csv_cells_of_stats_tables_are_neutralised():
    import pandas as pd

    from trace_crs.cli.tables import safe_cells

    frame = pd.DataFrame({"a": ["=1+1", "tfidf", "-x"], "b": [-1.5, 2.0, 3.0]})
    out = safe_cells(frame)
    assert list(out["a"]) == ["'=1+1", "tfidf", "'-x"] and list(out["b"]) == [-1.5, 2.0, 3.0]
    assert list(frame["a"]) == ["=1+1", "tfidf", "-x"]  # the input frame is left as it was


def test_stats_bootstrap_csv_escapes_a_formula_named_system(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    run = tmp_path / "run"
    assert main(["--quiet", "evaluate", "--kb", str(kb), "--dialogues", str(dialogues), "--baselines",
                 "popularity,tfidf", "--workers", "1", "--out", str(run)]) == 0
    scores = tmp_path / "s"
    for name, stem in (("tfidf", "=1+1"), ("popularity", "popularity")):
        assert main(["--quiet", "score", "--kb", str(kb), "--dialogues", str(dialogues), "--predictions",
                     str(run / "predictions" / f"{name}.jsonl"), "--out", str(scores / f"{stem}.score.json")]) == 0
    out = tmp_path / "b.csv"
    assert main(["--quiet", "stats", "bootstrap", "--scores", str(scores), "--pair", "=1+1:popularity:cgs",
                 "--n-boot", "20", "--out", str(out)]) == 0
    cells = [c for row in csv.reader(out.open(newline="")) for c in row]
    assert "'=1+1" in cells and "=1+1" not in cells


def test_stats_diagnose_refuses_a_run_whose_dialogues_changed_since(corpus, tmp_path, capsys):
    kb, dialogues = corpus
    d = tmp_path / "d.jsonl"
    shutil.copy(dialogues, d)
    results = tmp_path / "results"
    assert main(["--quiet", "evaluate", "--kb", str(kb), "--dialogues", str(d), "--baselines", "popularity",
                 "--workers", "1", "--out", str(results / "runs" / "r1")]) == 0
    d.write_text("".join(d.read_text().splitlines(keepends=True)[:-1]))  # one dialogue dropped since the run
    before = tree_hash(tmp_path)
    assert main(["stats", "diagnose", "--results", str(results), "--run", "r1", "--out", str(tmp_path / "x.parquet")]) == 3
    err = capsys.readouterr().err
    assert "inputs.dialogues" in err and "config.yaml's dialogues" in err
    assert tree_hash(tmp_path) == before
