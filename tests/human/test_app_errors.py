"""Hostile values and internal errors in the annotation app (trace_crs.human.app): a list inside
a list is a 422, and any 500 still carries every security header."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trace_crs.human.app import create_app
from trace_crs.human.store import LabelStore, read_items

ITEMS = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy", "cache-control")


@pytest.fixture()
def app_and_token(tmp_path):
    store = LabelStore(tmp_path / "labels.sqlite", read_items(ITEMS))
    return store, store.add_annotators(["A1"])["A1"]


@pytest.mark.parametrize("item,field,value", [
    ("t2-000", "pois", [["p1"]]),
    ("t2-000", "pois", [{"p": 1}]),
    ("t1-000", "errors", [["no_errors"]]),
    ("t1-000", "errors", [{"a": 1}]),
    ("t1-000", "quote.0", ["supported"]),
])
def test_nested_values_are_422_and_nothing_saved(app_and_token, item, field, value):
    store, tok = app_and_token
    client = TestClient(create_app(store))
    r = client.put(f"/api/{tok}/item/{item}/{field}", json={"value": value})
    assert r.status_code == 422, r.text
    assert store.fields("A1") == {}
    assert all(h in r.headers for h in SECURITY_HEADERS)


def test_an_internal_error_is_a_500_with_the_security_headers(app_and_token, monkeypatch):
    store, tok = app_and_token

    def broken(*_a, **_k):
        raise RuntimeError("a bug")

    monkeypatch.setattr(store, "fields", broken)
    client = TestClient(create_app(store), raise_server_exceptions=False)
    r = client.get(f"/api/{tok}/labels")
    assert r.status_code == 500
    assert r.json() == {"detail": "internal error"} and "a bug" not in r.text
    assert all(h in r.headers for h in SECURITY_HEADERS)


def test_a_busy_port_is_a_usage_error_before_the_database_is_created(tmp_path, capsys):
    import socket

    from trace_crs.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "labels.sqlite"
        code = main(["human", "serve", "--items", str(ITEMS), "--db", str(db), "--annotators", "A1",
                     "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 2 and f"--port {port}" in err and "choose another port" in err
    assert not db.exists()


def test_serve_without_an_annotator_name_is_a_usage_error(tmp_path, capsys):
    from trace_crs.cli import main

    db = tmp_path / "labels.sqlite"
    assert main(["human", "serve", "--items", str(ITEMS), "--db", str(db), "--annotators", ","]) == 2
    assert "give at least one name" in capsys.readouterr().err and not db.exists()
