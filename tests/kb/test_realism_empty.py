"""``kb realism`` with reference reviews that hold no word: a data error naming the file and the
field (exit 3), not a division by zero; the inputs are untouched and nothing is written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from hostile import tree_hash

from trace_crs.cli import main


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("kb") / "kb"
    assert main(["--quiet", "kb", "build", "--per-cell", "2", "--seed", "1", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("texts", [["", "  ", ""], ["!!!", "...", "--"]])
def test_reference_reviews_without_words_are_exit_3(kb_dir, tmp_path, capsys, texts):
    ref = tmp_path / "ref"
    ref.mkdir()
    rows = [{"review_id": f"r{i}", "business_id": "b", "text": t, "stars": 5, "date": "2020-01-01"}
            for i, t in enumerate(texts)]
    (ref / "yelp_academic_dataset_review.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = tree_hash(tmp_path)
    code = main(["kb", "realism", "--kb", str(kb_dir), "--reference", str(ref), "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 3 and "yelp_academic_dataset_review.json" in err and "field 'text'" in err
    assert "none of the 3 reviews has a word" in err
    assert tree_hash(tmp_path) == before


def test_the_json_and_the_markdown_are_one_commit(kb_dir, tmp_path, monkeypatch):
    from trace_crs.kb import realism

    out, md = tmp_path / "r.json", tmp_path / "card" / "r.md"
    argv = ["--quiet", "kb", "realism", "--kb", str(kb_dir), "--out", str(out), "--markdown", str(md)]
    assert main(argv) == 0
    before = tree_hash(tmp_path)

    def broken(report):
        raise OSError("disk full")

    monkeypatch.setattr(realism, "to_markdown", broken)
    assert main([*argv, "--seed", "7"]) == 2  # another seed: another JSON, never published alone
    assert tree_hash(tmp_path) == before
