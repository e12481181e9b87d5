"""Screenshots of the two tasks for the book: the real tool in headless Chromium, on the demo items."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from trace_crs.errors import DataError
from trace_crs.human import screens

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "demo_items.jsonl"


def test_both_tasks_shot_at_column_width(browser, tmp_path):
    paths = screens.take(DEMO, tmp_path, browser=browser)
    assert [p.name for p in paths] == ["human_task1.png", "human_task2.png"]      # task 2 (the marker) last
    sizes = [Image.open(p).size for p in paths]
    assert all(w == screens.WIDTH for w, _ in sizes)                             # shown at the size taken
    assert sizes[0][1] > 900                                                     # full page, not the viewport
    assert paths[0].read_bytes() != paths[1].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["human_task1.png", "human_task2.png"]  # no temp left


def test_items_without_a_task2_item_are_refused(tmp_path):
    only_t1 = tmp_path / "items.jsonl"
    only_t1.write_text(DEMO.read_text().splitlines()[0] + "\n")
    with pytest.raises(DataError, match="no t2 item"):
        screens.take(only_t1, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_fill_leaves_task1_half_done():
    class Store:
        def __init__(self):
            self.saved = {}

        def save(self, name, iid, field, value):
            self.saved[field] = value

    t1, t2 = (json.loads(line) for line in DEMO.read_text().splitlines())
    s1, s2 = Store(), Store()
    screens._fill(s1, "A1", t1)
    screens._fill(s2, "A1", t2)
    assert [f for f in s1.saved if f.startswith("quote.")] == [f"quote.{i}" for i in range(len(t1["quotes"]) - 1)]
    assert s2.saved["pois"] == [t2["candidates"][0]["poi_id"], t2["candidates"][-1]["poi_id"]]
    assert s2.saved["sentence"].startswith(f'I recommend {t2["candidates"][0]["name"]} because "')
