"""Operating-system errors are usage errors (trace_crs.cli.main): a parent that is a regular file,
a disk that is full, a read-only file system, an unwritable cache directory give exit 2 with the
path and the reason on one line, never a traceback; inputs stay byte-identical and no partial
output or temporary file is left.  Runs in-process on the shared small corpus (conftest)."""
from __future__ import annotations

import errno
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash  # noqa: E402

from trace_crs.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def ws(corpus, tmp_path_factory):
    """Copy of the shared corpus + a predictions file (gold first) + a regular file ``blocker``."""
    kb, dialogues = corpus
    w = tmp_path_factory.mktemp("os")
    shutil.copytree(kb, w / "kb")
    shutil.copy(dialogues, w / "dialogues.jsonl")
    preds = []
    for line in dialogues.read_text().splitlines():
        d = json.loads(line)
        for t in d["turns"]:
            if t["role"] == "system" and t["action"] in ("recommend", "compare"):
                preds.append({"dialogue_id": d["dialogue_id"], "turn_id": t["turn_id"],
                              "ranked_poi_ids": t["gold_poi_ids"], "text": ""})
    (w / "preds.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    (w / "blocker").write_text("a regular file\n")
    return w


def commands(w: Path, out: str) -> dict[str, list[str]]:
    k, d, p = str(w / "kb"), str(w / "dialogues.jsonl"), str(w / "preds.jsonl")
    return {
        "kb build": ["kb", "build", "--per-cell", "2", "--out", out],
        "kb stats": ["kb", "stats", k, "--out", out],
        "dialogues generate": ["dialogues", "generate", "--kb", k, "--n", "2", "--out", out],
        "dialogues stats": ["dialogues", "stats", "--dialogues", d, "--out", out],
        "dialogues leakage": ["dialogues", "leakage", "--dialogues", d, "--kb", k, "--out", out],
        "dialogues release": ["dialogues", "release", "--dialogues", d, "--kb", k, "--out", out],
        "dialogues unsolvable": ["dialogues", "unsolvable", "--dialogues", d, "--kb", k, "--n", "2", "--out", out],
        "score": ["score", "--kb", k, "--dialogues", d, "--predictions", p, "--out", out],
        "evaluate": ["evaluate", "--kb", k, "--dialogues", d, "--baselines", "popularity", "--subset", "2",
                     "--out", out],
    }


NAMES = list(commands(Path("."), "x"))


def _one_line(err: str) -> None:
    assert err.startswith("trace-crs: error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("name", NAMES)
def test_parent_is_a_regular_file(ws, capsys, name):
    before = tree_hash(ws)
    out = ws / "blocker" / "sub" / "out.json"
    assert main(["--quiet", *commands(ws, str(out))[name]]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert "blocker" in err and ("Not a directory" in err or "not a directory" in err)
    assert tree_hash(ws) == before


CHEAP = ("kb stats", "dialogues stats", "score")


@pytest.mark.parametrize("name,code", [(n, errno.ENOSPC) for n in NAMES] +
                         [(n, c) for n in CHEAP for c in (errno.EROFS, errno.EACCES)])
def test_disk_full_read_only_or_denied_at_the_final_rename(ws, capsys, monkeypatch, tmp_path, name, code):
    real = os.replace

    def refuse(src, dst):  # noqa: ANN001
        raise OSError(code, os.strerror(code), str(dst))
    monkeypatch.setattr("trace_crs.atomic.os.replace", refuse)
    before = tree_hash(ws)
    out = tmp_path / "o" / "out.json"
    assert main(["--quiet", *commands(ws, str(out))[name]]) == 2
    monkeypatch.setattr("trace_crs.atomic.os.replace", real)
    err = capsys.readouterr().err
    _one_line(err)
    assert os.strerror(code) in err and str(tmp_path) in err
    assert tree_hash(ws) == before
    left = [p.name for p in (tmp_path / "o").rglob("*")] if (tmp_path / "o").exists() else []
    assert not [n for n in left if n.endswith(".tmp") or ".tmp-" in n], left
    if name == "evaluate":  # a run directory: claimed, but never marked complete
        assert not (out / "MANIFEST.json").exists() and not (out / "records.parquet").exists()
    else:
        assert not out.exists()


def test_unwritable_cache_dir_env_and_home(ws, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TRACE_CACHE_DIR", str(ws / "blocker" / "cache"))
    args = commands(ws, str(tmp_path / "run"))["evaluate"]
    args = [a if a != "popularity" else "tfidf" for a in args]
    code = main(["--quiet", *args])
    err = capsys.readouterr().err
    if code != 0:  # tf-idf may not need the vector cache; then the run simply succeeds
        assert code == 2
        _one_line(err)
        assert "blocker" in err


def test_huge_error_message_is_truncated(ws, capsys, tmp_path):
    cfg = tmp_path / "huge.yaml"
    cfg.write_text("baselines: " + "x" * 3_000_000 + "\n")
    code = main(["evaluate", "--config", str(cfg), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and len(err) < 5000
    _one_line(err)
