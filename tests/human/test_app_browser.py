"""The annotation tool in real headless Chromium (Debian's, through tests/browser.py): three
annotators each click through a Task 1 and a Task 2 item, one reloads mid-item, the server
restarts once, hostile requests hit the live server over HTTP (a script in a comment, an unknown
token, another annotator's labels, item ids with path tricks, a 5 MB payload, concurrent writes),
and the exported labels equal exactly what was clicked and sent; no script ever runs."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.human.labels import read_labels
from trace_crs.human.screens import serving
from trace_crs.net import free_port
from trace_crs.human.store import LabelStore, read_items

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ITEMS = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"


def click(page, selector):
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "PUT" and r.ok):
        page.click(selector)


def put(base, token, item, field, body):
    """One raw PUT over HTTP; the status code."""
    data = body if isinstance(body, bytes) else json.dumps({"value": body}).encode()
    req = urllib.request.Request(f"{base}/api/{token}/item/{item}/{field}", data=data, method="PUT",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (ConnectionError, urllib.error.URLError):   # a server may close a refused 5 MB upload early
        return 413


def get(base, path):
    try:
        with urllib.request.urlopen(f"{base}{path}", timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""


def new_page(browser, dialogs, errors):
    page = browser.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def test_three_annotators_both_tasks_reload_restart_hostile_export(browser, tmp_path):
    db, port = tmp_path / "labels.sqlite", free_port()
    base = f"http://127.0.0.1:{port}"
    dialogs, errors = [], []
    tok = LabelStore(db, read_items(ITEMS)).add_annotators(["A1", "A2", "A3", "A4"])
    with serving(LabelStore(db, read_items(ITEMS)), port) as url:
        assert url == base
        # A1: a whole Task 1 item, a script in the comment
        page = new_page(browser, dialogs, errors)
        page.goto(f"{base}/a/{tok['A1']}/item/t1-000")
        click(page, 'input[name="quote.0"][value="supported"]')
        click(page, 'input[name=errors][value="too_vague"]')
        click(page, 'input[name=errors][value="exaggeration"]')
        click(page, 'input[name=informativeness][value="4"]')
        click(page, 'input[name=naturalness][value="2"]')
        with page.expect_response(lambda r: "/comment" in r.url and r.ok):
            page.fill("#comment", "<script>alert(1)</script> fine")
        # A2: starts t1-000, reloads mid-item, changes a mind, finishes
        page2 = new_page(browser, dialogs, errors)
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
        # A3: Task 1 on the item without quotes
        page3 = new_page(browser, dialogs, errors)
        page3.goto(f"{base}/a/{tok['A3']}/item/t1-001")
        click(page3, 'input[name=errors][value="missing_citation"]')
        click(page3, 'input[name=informativeness][value="2"]')
        click(page3, 'input[name=naturalness][value="3"]')
        # hostile requests against the live server
        assert put(base, "not-a-token", "t1-000", "comment", "x") == 403
        assert put(base, tok["A1"][:-1], "t1-000", "comment", "x") == 403
        for trick in ("..%2F..%2Fetc%2Fpasswd", "t1-000%3Bdrop", "%2e%2e", "t1-000%00"):
            assert put(base, tok["A1"], trick, "comment", "overwritten?") in (400, 404)
            assert get(base, f"/a/{tok['A1']}/item/{trick}")[0] in (400, 404)
        assert put(base, tok["A1"], "t1-000", "comment", b'{"value": "' + b"x" * (5 * 1024 * 1024) + b'"}') == 413
        assert put(base, tok["A1"], "t1-000", "informativeness", 9) == 422
        status, own = get(base, f"/api/{tok['A1']}/labels")
        assert status == 200 and set(json.loads(own)) == {"t1-000"}         # A2's and A3's labels not shown
        status, page_a3 = get(base, f"/a/{tok['A3']}/item/t1-001")
        assert status == 200 and 'value="missing_citation" checked' in page_a3
        assert 'value="missing_citation" checked' not in get(base, f"/a/{tok['A1']}/item/t1-001")[1]
    with serving(LabelStore(db, read_items(ITEMS)), port):                # a server restart
        page.goto(f"{base}/a/{tok['A1']}/item/t1-000")
        assert page.is_checked('input[name=informativeness][value="4"]')
        assert page.input_value("#comment") == "<script>alert(1)</script> fine"
        page.goto(f"{base}/a/{tok['A1']}/item/t1-001")
        click(page, 'input[name=errors][value="no_errors"]')
        click(page, 'input[name=informativeness][value="1"]')
        click(page, 'input[name=naturalness][value="1"]')
        # Task 2 for all three: A1 picks two and writes a sentence, A2 one, A3 builds a quote
        page.goto(f"{base}/a/{tok['A1']}/item/t2-000")
        click(page, 'input[name=pois][value="p1"]')
        click(page, 'input[name=pois][value="p3"]')
        with page.expect_response(lambda r: "/sentence" in r.url and r.ok):
            page.fill("#sentence", "Place 1 & <b>Place 3</b>.")
        page2.goto(f"{base}/a/{tok['A2']}/item/t2-000")
        click(page2, 'input[name=pois][value="p1"]')
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
        # concurrent writes (A4): 11 distinct fields, each sent 3 times, plus 16 racing comments
        fields = {("t1-000", "quote.0"): "not_supported", ("t1-000", "errors"): ["fabrication"],
                  ("t1-000", "informativeness"): 5, ("t1-000", "naturalness"): 4, ("t1-001", "errors"): ["no_errors"],
                  ("t1-001", "informativeness"): 3, ("t1-001", "naturalness"): 3, ("t1-001", "comment"): "ok",
                  ("t2-000", "pois"): ["p4"], ("t2-000", "sentence"): "Place 4."}
        jobs = [(i, f, v) for (i, f), v in fields.items() for _ in range(3)]
        jobs += [("t1-000", "comment", f"race {k}") for k in range(16)]
        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(lambda j: put(base, tok["A4"], *j), jobs))
        assert codes == [200] * len(jobs)
    assert dialogs == [] and errors == []                                 # no script ran, no page error
    out = tmp_path / "labels.jsonl"
    assert main(["human", "export", "--items", str(ITEMS), "--labels-db", str(db), "--out", str(out)]) == 0
    t1, t2 = read_labels(out)
    assert {r.items_sha256 for r in t1 + t2} == {None}                   # a store opened without a digest
    got = {(r.annotator, r.item_id): r.model_dump(exclude={"task", "baseline", "dialogue_id", "annotator", "item_id",
                                                           "items_sha256"})
           for r in t1}
    race = got[("A4", "t1-000")].pop("comment")
    assert race in {f"race {k}" for k in range(16)}                      # last writer wins, one whole value
    assert got == {
        ("A1", "t1-000"): {"quotes": ["supported"], "errors": ["too_vague", "exaggeration"], "informativeness": 4,
                           "naturalness": 2, "comment": "<script>alert(1)</script> fine"},
        ("A1", "t1-001"): {"quotes": [], "errors": ["no_errors"], "informativeness": 1, "naturalness": 1, "comment": ""},
        ("A2", "t1-000"): {"quotes": ["partial"], "errors": ["no_errors"], "informativeness": 3, "naturalness": 5,
                           "comment": ""},
        ("A3", "t1-001"): {"quotes": [], "errors": ["missing_citation"], "informativeness": 2, "naturalness": 3,
                           "comment": ""},
        ("A4", "t1-000"): {"quotes": ["not_supported"], "errors": ["fabrication"], "informativeness": 5,
                           "naturalness": 4},
        ("A4", "t1-001"): {"quotes": [], "errors": ["no_errors"], "informativeness": 3, "naturalness": 3,
                           "comment": "ok"},
    }
    assert sorted((r.annotator, r.pois, r.sentence) for r in t2) == [
        ("A1", ["p1", "p3"], "Place 1 & <b>Place 3</b>."),
        ("A2", ["p1"], ""),
        ("A3", ["p0", "p2"], 'I recommend Place 2 because "Review 2".'),
        ("A4", ["p4"], "Place 4."),
    ]
