"""The annotation tool in real headless Chromium (Debian's, through tests/browser.py): three
annotators click through Task 1 and Task 2 items, one reloads mid-item, the server restarts once,
and the exported labels equal what was clicked; a script typed into a comment never runs."""
from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from trace_crs.cli import main
from trace_crs.human.app import create_app
from trace_crs.human.labels import read_labels
from trace_crs.human.store import LabelStore, read_items

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(db, items, port):
    """The tool on 127.0.0.1:port for the ``with`` block (a fresh store: a restart each time)."""
    store = LabelStore(db, read_items(items))
    server = uvicorn.Server(uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield store
    finally:
        server.should_exit = True
        thread.join(10)


def click(page, selector):
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "PUT" and r.ok):
        page.click(selector)


def test_three_annotators_reload_restart_export(browser, tmp_path):
    items = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"
    db, port = tmp_path / "labels.sqlite", _port()
    base = f"http://127.0.0.1:{port}"
    with running(db, items, port) as store:
        tok = store.add_annotators(["A1", "A2", "A3"])
        dialogs = []
        page = browser.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        # A1: a whole Task 1 item, a script in the comment
        page.goto(f"{base}/a/{tok['A1']}/item/t1-000")
        click(page, 'input[name="quote.0"][value="supported"]')
        click(page, 'input[name=errors][value="too_vague"]')
        click(page, 'input[name=errors][value="exaggeration"]')
        click(page, 'input[name=informativeness][value="4"]')
        click(page, 'input[name=naturalness][value="2"]')
        with page.expect_response(lambda r: "/comment" in r.url and r.ok):
            page.fill("#comment", "<script>alert(1)</script> fine")
        # A2: starts t1-000, reloads mid-item, changes a mind, finishes
        page2 = browser.new_page()
        page2.goto(f"{base}/a/{tok['A2']}/item/t1-000")
        click(page2, 'input[name="quote.0"][value="partial"]')
        click(page2, 'input[name=errors][value="wrong_poi"]')
        page2.reload()
        assert page2.is_checked('input[name="quote.0"][value="partial"]')
        assert page2.is_checked('input[name=errors][value="wrong_poi"]')
        assert page2.input_value("#comment") == ""                      # A1's comment is not A2's
        click(page2, 'input[name=errors][value="no_errors"]')             # exclusive: clears wrong_poi
        assert not page2.is_checked('input[name=errors][value="wrong_poi"]')
        click(page2, 'input[name=informativeness][value="3"]')
        click(page2, 'input[name=naturalness][value="5"]')
    with running(db, items, port) as store:                              # a server restart
        page.goto(f"{base}/a/{tok['A1']}/item/t1-000")
        assert page.is_checked('input[name=informativeness][value="4"]')
        assert page.input_value("#comment") == "<script>alert(1)</script> fine"
        page.goto(f"{base}/a/{tok['A1']}/item/t1-001")
        click(page, 'input[name=errors][value="no_errors"]')
        click(page, 'input[name=informativeness][value="1"]')
        click(page, 'input[name=naturalness][value="1"]')
        # A3: Task 2 — pick two POIs, add a quote by selecting review text
        page3 = browser.new_page()
        page3.goto(f"{base}/a/{tok['A3']}/item/t2-000")
        click(page3, 'input[name=pois][value="p0"]')
        page3.click('.candidate[data-poi="p2"] summary')
        page3.evaluate("""() => { const p = document.querySelector('.candidate[data-poi="p2"] .review');
            const r = document.createRange(); r.setStart(p.firstChild, 0); r.setEnd(p.firstChild, 8);
            const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); }""")
        with page3.expect_response(lambda r: "/pois" in r.url and r.ok):
            page3.click('.candidate[data-poi="p2"] .add-quote')
        assert page3.input_value("#sentence") == 'I recommend Place 2 because "Review 2".'
        page3.reload()
        assert page3.is_checked('input[name=pois][value="p2"]') and page3.is_checked('input[name=pois][value="p0"]')
    assert dialogs == []                                                  # no script ran
    out = tmp_path / "labels.jsonl"
    assert main(["human", "export", "--items", str(items), "--labels-db", str(db), "--out", str(out)]) == 0
    t1, t2 = read_labels(out)
    got = {(r.annotator, r.item_id): r.model_dump(exclude={"task", "baseline", "dialogue_id", "annotator", "item_id"})
           for r in t1}
    assert got == {
        ("A1", "t1-000"): {"quotes": ["supported"], "errors": ["too_vague", "exaggeration"], "informativeness": 4,
                           "naturalness": 2, "comment": "<script>alert(1)</script> fine"},
        ("A1", "t1-001"): {"quotes": [], "errors": ["no_errors"], "informativeness": 1, "naturalness": 1, "comment": ""},
        ("A2", "t1-000"): {"quotes": ["partial"], "errors": ["no_errors"], "informativeness": 3, "naturalness": 5,
                           "comment": ""},
    }
    assert [(r.annotator, r.pois, r.sentence) for r in t2] == [
        ("A3", ["p0", "p2"], 'I recommend Place 2 because "Review 2".')]
