"""Export → import round trip on a whole built corpus (opt-in: several minutes on the default one).

    TRACE_ROUND_TRIP_CORPUS=data/dialogues/default TRACE_ROUND_TRIP_KB=data/kb/default \\
        .venv/bin/python -m pytest -q tests/release/test_round_trip_corpus.py

Inputs are read only; everything is written under pytest's temporary directory."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.release.official import project

from .conftest import import_args

CORPUS, KB = os.environ.get("TRACE_ROUND_TRIP_CORPUS"), os.environ.get("TRACE_ROUND_TRIP_KB")
pytestmark = pytest.mark.skipif(not (CORPUS and KB), reason="opt-in: set TRACE_ROUND_TRIP_CORPUS and TRACE_ROUND_TRIP_KB")


def test_whole_corpus_round_trip(tmp_path):
    dialogues = Path(CORPUS) / "dialogues.jsonl"
    assert main(["--quiet", "release", "export", "--kb", str(KB), "--dialogues", str(dialogues),
                 "--out", str(tmp_path / "rel"), "--yelp-bundle", str(tmp_path / "yelp")]) == 0
    assert main(["--quiet", *import_args(tmp_path / "rel", tmp_path / "imp", tmp_path / "yelp")]) == 0
    before, after = load_dialogues(dialogues), load_dialogues(tmp_path / "imp" / "dialogues.jsonl")
    canon = [json.dumps(project(d), sort_keys=True, ensure_ascii=False) for d in before]
    assert [json.dumps(project(d), sort_keys=True, ensure_ascii=False) for d in after] == canon
    assert [d["open_set_poi_ids"] for d in after] == [d["open_set_poi_ids"] for d in before]
