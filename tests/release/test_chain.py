"""The imported fixture release runs through `evaluate` and `score` (the chain of `make paper`)."""
from __future__ import annotations

import json

import pytest

from trace_crs.cli import main

from .conftest import import_args


@pytest.fixture(scope="module")
def popularity_run(tmp_path_factory):
    from .conftest import FIXTURES
    root = tmp_path_factory.mktemp("chain")
    assert main(["--quiet", *import_args(FIXTURES, root / "imp")]) == 0
    kb, dialogues = root / "imp" / "kb", root / "imp" / "dialogues.jsonl"
    assert main(["--quiet", "evaluate", "--kb", str(kb), "--dialogues", str(dialogues), "--baselines", "popularity",
                 "--pool", "closed", "--seed", "42", "--out", str(root / "run")]) == 0
    assert main(["--quiet", "score", "--kb", str(kb), "--dialogues", str(dialogues), "--predictions",
                 str(root / "run" / "predictions" / "popularity.jsonl"), "--dialogue-ids",
                 str(root / "run" / "dialogue_ids.json"), "--set", "entailment=none", "--set", "judge=none",
                 "--out", str(root / "score.json")]) == 0
    return json.loads((root / "score.json").read_text())


def test_imported_fixtures_score_the_hand_worked_mrr(popularity_run):
    # Hand-worked from build_fixtures.py: POI i has 4.5 - 0.5 i stars and 2 reviews, so Popularity
    # ranks every pool 0..7 (the runner's candidate order does not matter without ties), a rejected
    # POI last.  Gold per scored turn: Nashville [5] -> 1/6, [1,4] -> 1/2; New Orleans [0] -> 1,
    # [2,5] -> 1/3 ("Anything a bit calmer?" rejects nothing); Tampa [2] -> 1/3, [6,0] -> 1 ("Not
    # that one" demotes POI 2, which changes no gold rank).
    assert popularity_run["n_dialogues"] == 3 and popularity_run["n_turns"] == 6
    assert popularity_run["metrics"]["mrr"] == pytest.approx((1 / 6 + 1 / 2 + 1 + 1 / 3 + 1 / 3 + 1) / 6)
    assert popularity_run["metrics"]["hit@1"] == pytest.approx(2 / 6)  # the two turns ranked first
