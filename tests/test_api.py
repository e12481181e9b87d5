"""The documented Python API on a tiny KB built here: score from Python equals score from the shell."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import trace_crs
from trace_crs.cli import main
from trace_crs.kb.store import dump_jsonl

sys.path.insert(0, str(Path(__file__).parent / "baselines"))
from tinykb import DIALOGUES, tiny_kb  # noqa: E402


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("api")
    tiny_kb(root / "kb")
    dump_jsonl(DIALOGUES, root / "dialogues.jsonl")
    return root


def test_score_from_python_equals_the_cli(data, tmp_path):
    kb = trace_crs.load_kb(data / "kb")
    dialogues = trace_crs.load_dialogues(data / "dialogues.jsonl")
    preds = [{"dialogue_id": d["dialogue_id"], "turn_id": t["turn_id"], "ranked_poi_ids": list(d["candidate_poi_ids"]),
              "text": "A simple answer."} for d in dialogues for t in d["turns"]
             if t["role"] == "system" and t["action"] in ("recommend", "compare")]
    dump_jsonl(preds, tmp_path / "mine.jsonl")
    scores = trace_crs.score(kb, dialogues, tmp_path / "mine.jsonl", pool="closed")
    from_records = trace_crs.score(data / "kb", data / "dialogues.jsonl", preds)
    assert scores.aggregate["metrics"] == from_records.aggregate["metrics"]
    assert len(scores.per_turn) == len(preds) and list(scores.per_dialogue["dialogue_id"]) == [d["dialogue_id"] for d in DIALOGUES]
    assert main(["score", "--kb", str(data / "kb"), "--dialogues", str(data / "dialogues.jsonl"), "--quiet",
                 "--predictions", str(tmp_path / "mine.jsonl"), "--out", str(tmp_path / "cli.json")]) == 0
    assert json.loads((tmp_path / "cli.json").read_text())["metrics"] == pytest.approx(scores.aggregate["metrics"], nan_ok=True)


def test_evaluate_returns_records(data, tmp_path):
    records = trace_crs.evaluate(data / "kb", data / "dialogues.jsonl", tmp_path / "run", baselines="popularity,tfidf")
    assert set(records["baseline"]) == {"popularity", "tfidf"}
    n_turns = sum(t["role"] == "system" and t["action"] in ("recommend", "compare") for d in DIALOGUES for t in d["turns"])
    assert len(records) == 2 * n_turns


def test_api_names_and_bad_config():
    assert {"score", "load_kb", "load_dialogues", "evaluate"} <= set(trace_crs.__all__)
    with pytest.raises(ValueError, match="pool"):
        trace_crs.score(None, [], [], pool="closd")
