"""Judge failure rates (report.judge_failures) on hand-written records: two transcripts of one
system, one of another; every rate worked by hand."""
from __future__ import annotations

import json
import math

import pandas as pd

from trace_crs.judge.factors import FACTORS
from trace_crs.report import judge_failures


def record(system, dialogue, missing=(), attempts=None, failed=None, cut=None, model_s=0.0):
    attempts, failed, cut = attempts or {}, failed or {}, cut or {}
    return {
        "dialogue_id": f"{system}/{dialogue}", "system": system,
        "factors": {f: None if f in missing else 3 for f in FACTORS},
        "attempts": {"attempts": {f: attempts.get(f, 1) for f in FACTORS},
                     "failed_attempts": {f: failed.get(f, 0) for f in FACTORS},
                     "truncated": {f: cut.get(f, 0) for f in FACTORS}},
        "usage": {"model_s": model_s},
    }


def write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_rates_by_hand(tmp_path):
    f0, f1 = FACTORS[0], FACTORS[1]
    recs = [
        # a: 3 replies for f0 (2 unusable, 1 cut, still unrated), 2 for f1 (1 unusable); 10 others at once
        record("a", "d1", missing=[f0], attempts={f0: 3, f1: 2}, failed={f0: 3, f1: 1}, cut={f0: 1}, model_s=4.0),
        record("a", "d2", model_s=2.0),                      # 12 replies, all usable
        record("b", "d1", cut={f1: 1}, model_s=1.0),          # 12 replies, one cut but rated
    ]
    write(tmp_path / "j.jsonl", recs)
    df = judge_failures.load(tmp_path / "j.jsonl").set_index("baseline")
    # a: 24 ratings, 1 missing; replies 3 + 2 + 10 + 12 = 27, unusable 4, cut 1
    assert df.loc["a", "n_transcripts"] == 2
    assert math.isclose(df.loc["a", "not_rated"], 1 / 24)
    assert math.isclose(df.loc["a", "unusable"], 4 / 27)
    assert math.isclose(df.loc["a", "truncated"], 1 / 27)
    assert math.isclose(df.loc["a", "replies_per_rating"], 27 / 24)
    assert math.isclose(df.loc["a", "judge_s"], 3.0)
    assert (df.loc["b", "not_rated"], df.loc["b", "unusable"], df.loc["b", "replies_per_rating"]) == (0.0, 0.0, 1.0)
    assert math.isclose(df.loc["b", "truncated"], 1 / 12)


def test_absent_file_and_records_without_attempts(tmp_path):
    assert judge_failures.load(tmp_path / "none.jsonl").empty
    rec = record("a", "d1")
    del rec["attempts"]
    write(tmp_path / "j.jsonl", [rec])
    row = judge_failures.load(tmp_path / "j.jsonl").iloc[0]
    assert row["not_rated"] == 0.0 and math.isnan(row["unusable"]) and math.isnan(row["replies_per_rating"])


def test_live_adds_the_systems_fallback_rate(tmp_path):
    (tmp_path / "judge" / "live").mkdir(parents=True)
    write(tmp_path / "judge" / "live" / "core_a.jsonl", [record("llm_zero_shot", "d1"), record("tfidf", "d1")])
    for run, name, fb, turns in [("live", "tfidf", [0, 0], [2, 3]), ("live_llm", "llm_zero_shot", [1, 0, 2], [2, 2, 4])]:
        (tmp_path / "live" / run / "outcomes").mkdir(parents=True)
        pd.DataFrame({"n_fallbacks": fb, "n_system_turns": turns}).to_parquet(
            tmp_path / "live" / run / "outcomes" / f"{name}.parquet")
    df = judge_failures.live(tmp_path).set_index("baseline")
    assert df.loc["tfidf", "fallback_rate"] == 0.0
    assert math.isclose(df.loc["llm_zero_shot", "fallback_rate"], 3 / 8)
