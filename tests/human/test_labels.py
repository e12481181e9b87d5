"""The label reader: valid records load; bad ones name file, line and field (exit 3 through the CLI)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.errors import DataError
from trace_crs.human.labels import read_labels, task1_frame

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"
GOOD = {"task": "t1", "annotator": "A1", "item_id": "i1", "dialogue_id": "d1", "quotes": ["supported"],
        "errors": ["no_errors"], "informativeness": 3, "naturalness": 4}


def _write(tmp_path, *recs):
    p = tmp_path / "labels.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in recs))
    return p


@pytest.mark.parametrize("bad,field", [
    ({"informativeness": 6}, "informativeness"),
    ({"errors": ["no_errors", "too_vague"]}, "errors"),
    ({"errors": []}, "errors"),
    ({"errors": ["typo"]}, "errors.0"),
    ({"quotes": ["maybe"]}, "quotes.0"),
    ({"task": "t9"}, "task"),
    ({"surprise": 1}, "surprise"),
])
def test_bad_record_names_file_line_field(tmp_path, bad, field):
    p = _write(tmp_path, GOOD, GOOD | {"item_id": "i2"} | bad)
    with pytest.raises(DataError) as exc:
        read_labels(p)
    assert exc.value.line == 2 and exc.value.field == field and str(p) in str(exc.value)


def test_duplicate_and_not_json(tmp_path):
    with pytest.raises(DataError, match="second label"):
        read_labels(_write(tmp_path, GOOD, GOOD))
    with pytest.raises(DataError, match="malformed JSON"):
        read_labels(_write(tmp_path, GOOD, "{oops"))


def test_key_fills_baseline_and_blind_labels_need_it(tmp_path):
    p = _write(tmp_path, GOOD)
    t1, _ = read_labels(p)
    with pytest.raises(DataError, match="key file"):
        task1_frame(t1)
    key = pd.DataFrame([{"item_id": "i1", "baseline": "tfidf", "gs": 0.9}])
    assert task1_frame(t1, key)[["baseline", "gs"]].iloc[0].tolist() == ["tfidf", 0.9]


def test_cli_agree_writes_every_table_deterministically(tmp_path, capsys):
    args = ["human", "agree", "--labels", str(FIX / "labels.jsonl"), "--key", str(FIX / "key.jsonl"),
            "--n-boot", "50", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--out", str(tmp_path / "b")]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert "summary.json" in names and {"table10.parquet", "alphas.parquet", "leave_pair_out.parquet",
                                        "correlations.parquet", "paired.parquet", "task2.parquet"} <= set(names)
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes(), n


def test_cli_bad_label_exits_3(tmp_path, capsys):
    p = _write(tmp_path, GOOD | {"naturalness": 0})
    assert main(["human", "agree", "--labels", str(p), "--out", str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert "labels.jsonl:1" in err and "naturalness" in err
