"""The prompt-impact tool (tests/baselines/reader_impact.py) on a hand-made two-turn dialogue:
what it reads per user-turn prefix, and how it counts changed prefixes."""
from __future__ import annotations

import json

from reader_impact import compare, readings


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_readings_and_compare(tmp_path, capsys):
    dialogue = {
        "dialogue_id": "d1",
        "scenario": {"poi_type": "restaurant"},
        "turns": [
            {"role": "user", "text": "Somewhere quiet, no seafood."},
            {"role": "system", "text": "Try Blue Door Cafe.", "referenced_poi_ids": ["p1"]},
            {"role": "user", "text": "We've been there already."},
        ],
    }
    _write(tmp_path / "d.jsonl", [dialogue])
    _write(tmp_path / "p.jsonl", [{"business_id": "p1", "name": "Blue Door Cafe"}])
    readings(str(tmp_path / "d.jsonl"), str(tmp_path / "p.jsonl"), None, 42)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["turn"], r["rejected"], r["avoid"]) for r in rows] == [
        (0, [], [["style", "seafood"]]),
        (2, ["p1"], [["style", "seafood"]]),
    ]
    assert rows[1]["stated"]["noise"] == "quiet"
    changed = dict(rows[1], rejected=[])
    _write(tmp_path / "a.jsonl", rows)
    _write(tmp_path / "b.jsonl", [rows[0], changed])
    compare(str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    out = capsys.readouterr().out
    assert "avoid: 0 of 2" in out and "rejected: 1 of 2" in out and "stated: 0 of 2" in out
