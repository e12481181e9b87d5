"""The annotation web tool through FastAPI's TestClient: autosave, reload, restart, export, hostile input."""
from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trace_crs.cli import main
from trace_crs.human.app import create_app
from trace_crs.human.labels import read_labels
from trace_crs.human.store import LabelStore, read_items

HOSTILE = '<img src=x onerror="alert(1)">'   # in the fixture items' context
ITEMS_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"


@pytest.fixture()
def study(tmp_path):
    items = ITEMS_FILE
    store = LabelStore(tmp_path / "labels.sqlite", read_items(items))
    tokens = store.add_annotators(["A1", "A2"])
    return store, tokens, TestClient(create_app(store)), items


def put(client, token, item, field, value):
    return client.put(f"/api/{token}/item/{item}/{field}", json={"value": value})


def test_clicks_saved_reloaded_and_exported(study, tmp_path):
    store, tok, client, items = study
    clicks = {("t1-000", "quote.0"): "partial", ("t1-000", "errors"): ["too_vague", "wrong_poi"],
              ("t1-000", "informativeness"): 2, ("t1-000", "naturalness"): 4, ("t1-000", "comment"): "ok",
              ("t1-001", "errors"): ["no_errors"], ("t1-001", "informativeness"): 5, ("t1-001", "naturalness"): 5,
              ("t2-000", "pois"): ["p3", "p1"], ("t2-000", "sentence"): 'I recommend Place 3 because "Review 3".'}
    for (item, field), value in clicks.items():
        r = put(client, tok["A1"], item, field, value)
        assert r.status_code == 200, r.text
    assert put(client, tok["A1"], "t1-000", "informativeness", 3).status_code == 200   # a change of mind
    page = client.get(f"/a/{tok['A1']}/item/t1-000").text
    assert re.search(r'value="partial" data-field="quote.0"\s*checked', page)
    assert not re.search(r'value="supported" data-field="quote.0"\s*checked', page)
    assert 'value="3" data-field="informativeness" data-int="1" checked' in page
    store2 = LabelStore(store.db, store.items)                          # a server restart
    assert store2.fields("A1")["t1-000"]["informativeness"] == 3
    assert store2.add_annotators(["A1"]) == {"A1": tok["A1"]}          # links survive a restart
    out = tmp_path / "labels.jsonl"
    assert main(["human", "export", "--items", str(items), "--labels-db", str(store.db), "--out", str(out),
                 "--csv", str(tmp_path / "labels.csv")]) == 0
    t1, t2 = read_labels(out)
    got = {r.item_id: r for r in t1}
    assert got["t1-000"].quotes == ["partial"] and got["t1-000"].errors == ["wrong_poi", "too_vague"]
    assert got["t1-000"].informativeness == 3 and got["t1-000"].comment == "ok"
    assert got["t1-001"].quotes == [] and got["t1-001"].errors == ["no_errors"]
    assert t2[0].pois == ["p3", "p1"] and t2[0].dialogue_id == "d1"
    assert (tmp_path / "labels.csv").read_text().count("\n") == 4


def test_incomplete_labels_are_listed_not_dropped(study, capsys, tmp_path):
    store, tok, client, items = study
    put(client, tok["A2"], "t1-000", "informativeness", 4)
    done, missing = store.export()
    assert done == [] and missing == [{"annotator": "A2", "item_id": "t1-000",
                                       "missing": ["quote.0", "errors", "naturalness"]}]
    assert main(["human", "export", "--items", str(items), "--labels-db", str(store.db),
                 "--out", str(tmp_path / "o.jsonl")]) == 0
    assert "incomplete: A2 t1-000 lacks quote.0, errors, naturalness" in capsys.readouterr().err


def test_script_in_a_comment_and_in_items_is_escaped(study):
    _, tok, client, _ = study
    assert put(client, tok["A1"], "t1-000", "comment", "</textarea><script>alert(1)</script>").status_code == 200
    r = client.get(f"/a/{tok['A1']}/item/t1-000")
    assert "<script>alert(1)" not in r.text and "&lt;/textarea&gt;&lt;script&gt;alert(1)" in r.text
    assert HOSTILE not in r.text and "&lt;img src=x onerror=" in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"]   # no inline script would run anyway


def test_tokens_separate_annotators(study):
    _, tok, client, _ = study
    put(client, tok["A2"], "t1-000", "comment", "A2's secret note")
    assert client.get(f"/api/{tok['A1']}/labels").json() == {}
    assert "A2's secret note" not in client.get(f"/a/{tok['A1']}/item/t1-000").text
    for bad in ("not-a-token", tok["A1"][:-1], "x" * 500):
        assert client.get(f"/a/{bad}").status_code == 403
        assert put(client, bad, "t1-000", "comment", "x").status_code == 403
    assert client.get(f"/api/{tok['A2']}/labels").json() == {"t1-000": {"comment": "A2's secret note"}}


@pytest.mark.parametrize("item,codes", [("..%2F..%2Fetc%2Fpasswd", {400, 404}), ("t1-000;drop", {400}),
                                        ("t1-999", {404}), ("%2e%2e", {400, 404})])
def test_item_ids_with_path_tricks_refused(study, item, codes):
    _, tok, client, _ = study
    assert client.get(f"/a/{tok['A1']}/item/{item}").status_code in codes
    assert put(client, tok["A1"], item, "comment", "x").status_code in codes
    assert client.get(f"/api/{tok['A1']}/labels").json() == {}


def test_large_payload_refused_and_nothing_saved(study):
    store, tok, client, _ = study
    big = json.dumps({"value": "x" * (5 * 1024 * 1024)})
    r = client.put(f"/api/{tok['A1']}/item/t1-000/comment", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and store.fields("A1") == {}


@pytest.mark.parametrize("item,field,value", [
    ("t1-000", "informativeness", 7), ("t1-000", "informativeness", True), ("t1-000", "errors", ["no_errors", "too_vague"]),
    ("t1-000", "errors", ["made_up"]), ("t1-000", "quote.1", "supported"), ("t1-000", "quote.0", "yes"),
    ("t1-000", "pois", ["p1"]), ("t2-000", "pois", ["p0", "p1", "p2", "p3"]), ("t2-000", "pois", ["nowhere"]),
    ("t1-000", "comment", "x" * 10_001), ("t1-000", "__proto__", 1),
])
def test_invalid_values_are_422(study, item, field, value):
    store, tok, client, _ = study
    assert put(client, tok["A1"], item, field, value).status_code == 422
    assert store.fields("A1") == {}


def test_concurrent_writes_lose_nothing(study):
    store, tok, _, _ = study
    app = create_app(store)

    def work(k):
        with TestClient(app) as c:
            ann = "A1" if k % 2 else "A2"
            assert put(c, tok[ann], "t1-000", "comment", f"{ann} write {k}").status_code == 200
            assert put(c, tok[ann], "t1-001", "informativeness", 1 + k % 5).status_code == 200
            return ann, k

    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(work, range(40)))
    assert len(done) == 40
    for ann in ("A1", "A2"):
        f = store.fields(ann)
        assert f["t1-000"]["comment"] in {f"{ann} write {k}" for a, k in done if a == ann}
        assert f["t1-001"]["informativeness"] in range(1, 6)
