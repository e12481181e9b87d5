"""Hostile inputs to `trace-crs dialogues validate|stats` and `trace-crs evaluate`: exit code,
a message naming where, inputs unchanged, and no half-made output (no config.yaml left behind)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from tinykb import DIALOGUES, tiny_kb  # noqa: E402

from trace_crs.cli import main  # noqa: E402
from trace_crs.dialogues.schema import load_dialogues, validation_record_path  # noqa: E402
from trace_crs.errors import DataError  # noqa: E402
from trace_crs.kb.store import dump_jsonl, sha256_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def inputs(tmp_path):
    path = tmp_path / "dialogues.jsonl"
    dump_jsonl(DIALOGUES, path)
    tiny_kb(tmp_path / "kb")
    return tmp_path / "kb", path


def hashes(*paths: Path) -> dict:
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.iterdir()))]
    return {f: sha256_file(f) for f in files}


def test_duplicate_dialogue_id_fails_validation_and_loading(corpus, tmp_path, capsys):
    kb, clean = corpus
    path = tmp_path / "dup.jsonl"
    path.write_text(clean.read_text() + clean.read_text().splitlines(keepends=True)[0])
    assert main(["dialogues", "validate", str(clean), "--kb", str(kb)]) == 0
    capsys.readouterr()
    assert main(["dialogues", "validate", str(path), "--kb", str(kb)]) == 1
    out = capsys.readouterr().out
    assert "12 passed" in out and "duplicate_dialogue_id" in out
    with pytest.raises(DataError, match=r"dup.jsonl:13: dialogue crs_yelp_00001: field 'dialogue_id': duplicate"):
        load_dialogues(path)


@pytest.mark.parametrize("content,message", [
    (b'{"dialogue_id": "\xff"}\n', "dialogues.jsonl:1: dialogue ?: field '<bytes>': not UTF-8"),
    (b"[" * 60000 + b"]" * 60000 + b"\n", "dialogues.jsonl:1: dialogue ?: field '<json>'"),
    (b"{oops\n", "dialogues.jsonl:1: dialogue ?: field '<json>': malformed JSON"),
])
def test_unreadable_dialogue_lines_exit_3(inputs, capsys, content, message):
    _, path = inputs
    path.write_bytes(content)
    assert main(["dialogues", "stats", str(path)]) == 3
    assert message in capsys.readouterr().err


def test_validate_a_read_only_corpus_writes_no_stamp(corpus, tmp_path, monkeypatch, capsys):
    """The validation record is a shortcut beside the corpus; an unwritable directory (a shared,
    read-only dataset) must not fail validation.  Root ignores chmod, so the denial is simulated."""
    kb, clean = corpus
    path = tmp_path / "ro.jsonl"
    path.write_bytes(clean.read_bytes())
    real_write = Path.write_text

    def denied(self, *a, **k):
        if self.name.endswith(".validated.json.tmp"):
            raise PermissionError(13, "Permission denied", str(self))
        return real_write(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", denied)
    assert main(["dialogues", "validate", str(path), "--kb", str(kb)]) == 0
    assert not validation_record_path(path).exists()


def evaluate(inputs, out: Path, *extra: str) -> int:
    kb, path = inputs
    before = hashes(kb, path)
    code = main(["evaluate", "--kb", str(kb), "--dialogues", str(path), "--baselines", "popularity",
                 "--quiet", "--out", str(out), *extra])
    assert hashes(kb, path) == before, "an input changed"
    return code


@pytest.mark.parametrize("setting,message", [
    ("subset=2.7", "key 'subset': expected an integer, got 2.7"),
    ("subset=.inf", "key 'subset': expected an integer, got inf"),
    ("seed=true", "key 'seed': expected an integer, got True"),
    ("prefilter=bogus", "prefilter='bogus' must be one of tfidf, dense"),
    ("pool=bogus", "pool='bogus' must be one of closed, 16, 32, open"),
    ("subset=0", "subset=0 must be >= 1"),
    ("chunk_size=-5", "chunk_size=-5 must be >= 1"),
    ("nonsense=1", "unknown key(s) ['nonsense']"),
    ("lm=7", "lm=7 must be a mapping"),
])
def test_bad_settings_exit_2_and_leave_no_config(inputs, tmp_path, capsys, setting, message):
    out = tmp_path / "run"
    assert evaluate(inputs, out, "--set", setting) == 2
    assert message in capsys.readouterr().err
    assert not (out / "config.yaml").exists()
    assert evaluate(inputs, out) == 0  # the next valid run in that directory starts


@pytest.mark.parametrize("where", ["kb", "dialogues"])
def test_out_over_an_input_is_refused(inputs, capsys, where):
    kb, path = inputs
    out = kb if where == "kb" else path
    assert evaluate(inputs, out) == 2
    assert "would overwrite the input" in capsys.readouterr().err


def test_projects_own_config_files_are_read(inputs, tmp_path):
    assert evaluate(inputs, tmp_path / "run", "--config", str(ROOT / "configs" / "smoke" / "closed.yaml")) == 0
    cfg = (tmp_path / "run" / "config.yaml").read_text()
    assert "pool: closed" in cfg and "- popularity" in cfg  # --baselines wins over the file's list


def test_missing_and_malformed_config_files(inputs, tmp_path, capsys):
    assert evaluate(inputs, tmp_path / "a", "--config", str(tmp_path / "nope.yaml")) == 2
    assert "file not found" in capsys.readouterr().err
    (tmp_path / "bad.yaml").write_text("evaluate: [unclosed\n")
    assert evaluate(inputs, tmp_path / "b", "--config", str(tmp_path / "bad.yaml")) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_consistent_input_and_output_flags(corpus, tmp_path, capsys):
    kb, path = corpus
    assert main(["dialogues", "stats", "--dialogues", str(path), "--out", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["dialogues"] == 12
    assert main(["kb", "stats", "--kb", str(kb), "--out", str(tmp_path / "k.json")]) == 0
    assert (tmp_path / "k.json").exists()
    assert main(["dialogues", "stats"]) == 2 and "a dialogues file is required" in capsys.readouterr().err


def test_out_a_non_empty_directory_that_is_not_a_run_is_refused(inputs, tmp_path, capsys):
    stranger = tmp_path / "notes"
    stranger.mkdir()
    (stranger / "draft.txt").write_text("keep me")
    assert evaluate(inputs, stranger) == 2
    assert "not a run" in capsys.readouterr().err and (stranger / "draft.txt").read_text() == "keep me"
    assert sorted(p.name for p in stranger.iterdir()) == ["draft.txt"]
