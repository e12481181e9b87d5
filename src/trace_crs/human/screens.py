"""Screenshots of the two annotation tasks for the book (seed 000 App. K.1, Figures 4–5).

``python -m trace_crs.human.screens --items ITEMS.jsonl --out-dir figures [--chromium PATH]``
serves the real tool (:func:`trace_crs.human.app.create_app` on a throw-away SQLite store, on a
free 127.0.0.1 port), fills a few fields of its first Task 1 and first Task 2 item for one
annotator (what a half-done item looks like) and takes a full-page screenshot of each in
headless Chromium (Debian's, driven by Playwright), :data:`WIDTH` CSS pixels wide at device
scale 1, so the book shows them at the size they were taken, framed by a 1-px grey border.  Writes
``<out-dir>/human_task1.png`` and ``human_task2.png`` together (trace_crs.atomic; task 2
last).  ``make human-screens`` runs it on ``tests/fixtures/human/demo_items.jsonl`` (invented
demonstration text); the images are generated, not committed.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from trace_crs.atomic import commit_files
from trace_crs.errors import DataError
from trace_crs.human.app import create_app
from trace_crs.human.store import LabelStore, read_items
from trace_crs.net import HOST, free_port

WIDTH = 720  # CSS px: the book's text column (trace_crs.report.figures.WIDTH_IN as SVG points)
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
BORDER = (150, 150, 150)
NAMES = {"t1": "human_task1", "t2": "human_task2"}


@contextlib.contextmanager
def serving(store: LabelStore, port: int | None = None) -> Iterator[str]:
    """The tool over ``store`` on ``http://127.0.0.1:<port>`` (a free one by default) for the
    ``with`` block, in a thread of this process."""
    import uvicorn

    port = free_port() if port is None else port
    server = uvicorn.Server(uvicorn.Config(create_app(store), host=HOST, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.05)
    else:
        raise RuntimeError("the annotation tool did not start within 20 s")
    try:
        yield f"http://{HOST}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def _fill(store: LabelStore, name: str, item: dict[str, Any]) -> None:
    """A half-done item: Task 1 — every quote but the last labelled, one error, both ratings;
    Task 2 — the first and last candidates picked and a cited sentence."""
    iid = item["item_id"]
    if item["task"] == "t1":
        for i, _ in enumerate(item.get("quotes", [])[:-1]):
            store.save(name, iid, f"quote.{i}", "supported")
        store.save(name, iid, "errors", ["too_vague"])
        store.save(name, iid, "informativeness", 4)
        store.save(name, iid, "naturalness", 4)
    else:
        cands = item.get("candidates", [])
        picks = [c["poi_id"] for c in (cands[:1] + cands[-1:])] if len(cands) > 1 else [c["poi_id"] for c in cands]
        store.save(name, iid, "pois", picks)
        if cands and cands[0].get("reviews"):
            quote = cands[0]["reviews"][0]["text"].split(".")[0]
            store.save(name, iid, "sentence", f'I recommend {cands[0]["name"]} because "{quote}".')


def take(items_path: str | Path, out_dir: str | Path, chromium: str = CHROMIUM, browser: Any = None) -> list[Path]:
    """Screenshots of the first Task 1 and Task 2 item of ``items_path`` (see the module docstring),
    in ``browser`` (a Playwright ``Browser``) or a Chromium launched from ``chromium``."""
    items = read_items(items_path)
    first = {task: next((i for i in items.values() if i["task"] == task), None) for task in NAMES}
    missing = [t for t, i in first.items() if i is None]
    if missing:
        raise DataError(f"no {' or '.join(missing)} item to show", file=str(items_path), field="task")
    out = Path(out_dir)
    shots: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = LabelStore(Path(tmp) / "labels.sqlite", items)
        token = store.add_annotators(["A1"])["A1"]
        for item in first.values():
            assert item is not None
            _fill(store, "A1", item)
        with serving(store) as base, contextlib.ExitStack() as stack:
            if browser is None:
                browser = stack.enter_context(_chromium(chromium))
            page = browser.new_page(viewport={"width": WIDTH, "height": 900}, device_scale_factor=1)
            try:
                for task, item in first.items():
                    assert item is not None
                    page.goto(f"{base}/a/{token}/item/{item['item_id']}", wait_until="load")
                    page.locator("details").first.evaluate("d => d.open = true")  # reviews shown
                    png = page.screenshot(full_page=True, type="png", animations="disabled", caret="hide")
                    shots[task] = _framed(png)
            finally:
                page.close()
    writers: dict[str | Path, Callable[[Path], Any]] = {
        out / f"{NAMES[t]}.png": functools.partial(Path.write_bytes, data=shots[t]) for t in NAMES
    }
    return commit_files(writers, out / f"{NAMES['t2']}.png")


def _framed(png: bytes) -> bytes:
    """``png`` with a 1-px grey border, so the page's screenshot reads as a picture of the tool."""
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(png)).convert("RGB")
    ImageDraw.Draw(image).rectangle((0, 0, image.width - 1, image.height - 1), outline=BORDER)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@contextlib.contextmanager
def _chromium(executable: str) -> Iterator[Any]:
    """Headless Chromium from ``executable`` (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trace_crs.human.screens", description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=Path, required=True, help="items JSON lines (a Task 1 and a Task 2 item)")
    parser.add_argument("--out-dir", type=Path, required=True, help="where human_task1.png / human_task2.png go")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the Chromium binary (default {CHROMIUM})")
    args = parser.parse_args(argv)
    for path in take(args.items, args.out_dir, args.chromium):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
