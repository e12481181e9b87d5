"""Inputs that only make sense together are checked against each other (exit 3, naming both
SHA-256s, nothing written): a run and the dialogues/KB given beside it (``human sample``,
trace_crs.cli.run_inputs), an unsolvable set and the KB it was verified against (``stats
abstention``, trace_crs.dialogues.unsolvable.check_kb)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash

from trace_crs.cli import main


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def run(corpus, tmp_path_factory):
    kb, dialogues = corpus
    out = tmp_path_factory.mktemp("run") / "run"
    assert main(["--quiet", "evaluate", "--kb", str(kb), "--dialogues", str(dialogues), "--baselines",
                 "popularity,tfidf", "--workers", "1", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def other_kb(tmp_path_factory):
    out = tmp_path_factory.mktemp("other") / "kb"
    assert main(["--quiet", "kb", "build", "--per-cell", "10", "--seed", "7", "--out", str(out)]) == 0
    return out


def _sample(run: Path, kb: Path, dialogues: Path, w: Path) -> list[str]:
    return ["human", "sample", "--run", str(run), "--kb", str(kb), "--dialogues", str(dialogues), "--baselines",
            "popularity,tfidf", "--n", "4", "--n-task2", "2", "--out", str(w / "items.jsonl"),
            "--key-out", str(w / "key.jsonl")]


def test_human_sample_with_the_runs_own_inputs_works(corpus, run, tmp_path):
    kb, dialogues = corpus
    assert main(["--quiet", *_sample(run, kb, dialogues, tmp_path)]) == 0
    digest = _sha(tmp_path / "items.jsonl")  # every key line names the items file it was drawn with
    assert {json.loads(x)["items_sha256"] for x in (tmp_path / "key.jsonl").read_text().splitlines()} == {digest}


def test_human_sample_with_other_dialogues_is_refused(corpus, run, tmp_path, capsys):
    kb, dialogues = corpus
    other = tmp_path / "other.jsonl"
    other.write_text("".join(reversed(dialogues.read_text().splitlines(keepends=True))))  # same dialogues, reordered
    before = tree_hash(tmp_path)
    assert main(_sample(run, kb, other, tmp_path)) == 3
    err = capsys.readouterr().err
    assert "inputs.dialogues" in err and _sha(other) in err and _sha(dialogues) in err
    assert tree_hash(tmp_path) == before


def test_human_sample_with_another_kb_is_refused(corpus, run, other_kb, tmp_path, capsys):
    _, dialogues = corpus
    assert main(_sample(run, other_kb, dialogues, tmp_path)) == 3
    err = capsys.readouterr().err
    assert "inputs.kb/pois.jsonl" in err and _sha(other_kb / "pois.jsonl") in err
    assert not (tmp_path / "items.jsonl").exists()


def test_an_unsolvable_set_with_another_kb_is_refused(corpus, other_kb, tmp_path, capsys):
    kb, dialogues = corpus
    u = tmp_path / "u.jsonl"
    assert main(["--quiet", "dialogues", "unsolvable", "--dialogues", str(dialogues), "--kb", str(kb), "--n", "10",
                 "--out", str(u)]) == 0
    assert {json.loads(line)["metadata"]["kb_sha256"] for line in u.read_text().splitlines()} == {
        _sha(kb / "pois.jsonl")}
    capsys.readouterr()
    before = tree_hash(tmp_path)
    argv = ["stats", "abstention", "--kb", str(other_kb), "--dialogues", str(dialogues), "--unsolvable", str(u),
            "--n-solvable", "5", "--out", str(tmp_path / "abst")]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "metadata.kb_sha256" in err and _sha(other_kb / "pois.jsonl") in err and "u.jsonl:1:" in err
    assert tree_hash(tmp_path) == before


def test_judge_transcripts_of_a_run_with_other_dialogues_is_refused(corpus, run, tmp_path, capsys):
    kb, dialogues = corpus
    other = tmp_path / "other.jsonl"
    other.write_text("".join(reversed(dialogues.read_text().splitlines(keepends=True))))
    argv = ["judge", "transcripts", "--run", str(run), "--kb", str(kb), "--out", str(tmp_path / "t.jsonl")]
    assert main([*argv, "--dialogues", str(other)]) == 3
    assert "inputs.dialogues" in capsys.readouterr().err and not (tmp_path / "t.jsonl").exists()
    assert main([*argv, "--dialogues", str(dialogues)]) == 0
