"""``judge agree`` says why its agreement tables are all null (trace_crs.cli.judge_agree): human
labels without a numeric rating, and judged and human files that share no system."""

from __future__ import annotations

import json

from trace_crs.cli import main
from trace_crs.judge.records import FACTORS


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _judged(path, ids, system=None):
    return _write(path, [{"dialogue_id": d, "factors": {f: (i + j) % 5 for j, f in enumerate(FACTORS)},
                          "core_avg": 2.0, **({"system": system} if system else {})} for i, d in enumerate(ids)])


def test_labels_without_a_numeric_rating_are_warned_about(tmp_path, capsys):
    ids = [f"d{i}" for i in range(5)]
    pred = _judged(tmp_path / "p.jsonl", ids)
    human = _write(tmp_path / "h.jsonl", [{"dialogue_id": d} for d in ids])
    out = tmp_path / "a.json"
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(human), "--quiet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--human holds no numeric rating" in err
    assert "table 'factors': every value is undefined" in err
    assert json.loads(out.read_text())["factors"]  # the tables are still written, as computed


def test_files_sharing_no_system_are_warned_about(tmp_path, capsys):
    ids = [f"d{i}" for i in range(5)]
    pred = _judged(tmp_path / "p.jsonl", ids, system="tfidf")
    human = _write(tmp_path / "h.jsonl", [{"dialogue_id": d, "system": "bm25", "novelty": i % 5, "overall": 10 * i}
                                          for i, d in enumerate(ids)])
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(human), "--quiet",
                 "--out", str(tmp_path / "a.json")]) == 0
    assert "--pred and --human share no system (e.g. ['tfidf'] vs ['bm25'])" in capsys.readouterr().err


def test_agreeing_files_give_no_such_warning(tmp_path, capsys):
    ids = [f"d{i}" for i in range(5)]
    pred = _judged(tmp_path / "p.jsonl", ids, system="tfidf")
    human = _write(tmp_path / "h.jsonl", [{"dialogue_id": d, "system": "tfidf", "novelty": i % 5, "overall": 10 * i}
                                          for i, d in enumerate(ids)])
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(human), "--quiet",
                 "--out", str(tmp_path / "a.json")]) == 0
    err = capsys.readouterr().err
    assert "no numeric rating" not in err and "share no system" not in err
