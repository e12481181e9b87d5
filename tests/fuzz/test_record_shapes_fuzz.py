"""Records of the wrong shape found by the probe were tracebacks: a predictions line whose
``dialogue_id`` is a list (``score``), a dialogue whose id is a list (``dialogues validate``), a
released dialogue that is a JSON array or points to a review the KB lacks (``dialogues
hydrate``).  Each is now a one-line error (``validate``: a failed record, exit 1 by design) and
the inputs are untouched."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import main


@pytest.fixture()
def w(corpus, tmp_path):
    (tmp_path / "arr.jsonl").write_text("[1, 2]\n")
    (tmp_path / "listid.jsonl").write_text(json.dumps({"dialogue_id": ["x"], "turn_id": 2}) + "\n")
    return tmp_path


def test_score_with_a_list_dialogue_id_names_the_line(corpus, w, capsys):
    kb, dialogues = corpus
    before = tree_hash(w)
    assert main(["score", "--kb", str(kb), "--dialogues", str(dialogues), "--predictions", str(w / "listid.jsonl"),
                 "--out", str(w / "s.json")]) == 3
    err = capsys.readouterr().err
    assert "listid.jsonl:1: field 'dialogue_id'" in err and err.count("\n") == 1
    assert tree_hash(w) == before


def test_validate_reports_a_list_dialogue_id_as_a_failed_record(corpus, w, capsys):
    kb, _ = corpus
    assert main(["dialogues", "validate", str(w / "listid.jsonl"), "--kb", str(kb)]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "0 passed" in out.out + out.err


def test_hydrate_types_the_released_record(corpus, w, capsys):
    kb, _ = corpus
    before = tree_hash(w)
    assert main(["dialogues", "hydrate", "--dialogues", str(w / "arr.jsonl"), "--kb", str(kb),
                 "--out", str(w / "h.jsonl")]) == 3
    assert "arr.jsonl:1: field '<record>': expected an object, got array" in capsys.readouterr().err
    assert tree_hash(w) == before


def test_hydrate_against_a_kb_without_the_review_is_a_data_error(corpus, w, capsys, tmp_path_factory):
    kb, dialogues = corpus
    rel = w / "rel.jsonl"
    assert main(["--quiet", "dialogues", "release", "--dialogues", str(dialogues), "--kb", str(kb),
                 "--out", str(rel)]) == 0
    other = tmp_path_factory.mktemp("o") / "kb"
    assert main(["--quiet", "kb", "build", "--per-cell", "10", "--seed", "5", "--out", str(other)]) == 0
    capsys.readouterr()
    assert main(["dialogues", "hydrate", "--dialogues", str(rel), "--kb", str(other), "--out", str(w / "h.jsonl")]) == 3
    err = capsys.readouterr().err
    assert "rel.jsonl:1: field 'citations'" in err and "missing from the KB" in err


@pytest.mark.parametrize("config,message", [
    (": : :\n", "config.yaml:1: not YAML"),
    ("[1, 2]\n", "expected a mapping"),
    ("kb: 5\ndialogues: d.jsonl\n", "field 'kb': missing, or not a path"),
    ("kb: kb\n", "field 'dialogues': missing, or not a path"),
])
@pytest.mark.parametrize("command", ["diagnose", "sensitivity"])
def test_a_bad_run_config_is_exit_3_naming_it(tmp_path, capsys, config, message, command):
    (tmp_path / "res" / "runs" / "r1").mkdir(parents=True)
    (tmp_path / "res" / "runs" / "r1" / "config.yaml").write_text(config)
    before = tree_hash(tmp_path)
    argv = (["stats", "diagnose", "--results", str(tmp_path / "res"), "--run", "r1"] if command == "diagnose" else
            ["stats", "sensitivity", "fuzzy", "--results", str(tmp_path / "res"), "--runs", "r1"])
    assert main([*argv, "--out", str(tmp_path / "x.parquet")]) == 3
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert tree_hash(tmp_path) == before


def test_human_sample_names_the_missing_record_columns(corpus, tmp_path, capsys):
    import pandas as pd

    kb, dialogues = corpus
    (tmp_path / "run").mkdir()
    pd.DataFrame({"x": [1]}).to_parquet(tmp_path / "run" / "records.parquet")
    assert main(["human", "sample", "--run", str(tmp_path / "run"), "--kb", str(kb), "--dialogues", str(dialogues),
                 "--out", str(tmp_path / "i.jsonl"), "--key-out", str(tmp_path / "k.jsonl")]) == 3
    assert "records.parquet: no column(s) dialogue_id, turn_id, baseline, text, citations" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    "release export --kb {kb} --dialogues {w}/empty.jsonl --out {w}/rel",
    "dialogues release --dialogues {w}/empty.jsonl --kb {kb} --out {w}/r.jsonl",
    "dialogues hydrate --dialogues {w}/empty.jsonl --kb {kb} --out {w}/h.jsonl",
])
def test_an_empty_corpus_is_exit_3_and_writes_nothing(corpus, w, capsys, argv):
    kb, _ = corpus
    (w / "empty.jsonl").write_text("")
    before = tree_hash(w)
    assert main(argv.format(kb=kb, w=w).split()) == 3
    assert "no dialogues (an empty corpus)" in capsys.readouterr().err
    assert tree_hash(w) == before
