"""Persuasiveness (CoRE Table 7's conventional row, judge.persuasive) through ``judge core
--persuasiveness`` against the suite's fake OpenAI-compatible server: one extra call per
transcript, an out-of-scale first answer re-asked, the rating in the record and in
``read_ratings``; off by default (no call, no field)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.judge.agree import overall_agreement
from trace_crs.judge.records import read_ratings

FIXTURE = Path(__file__).parent / "fixtures" / "movie_crs.jsonl"


def _reply(messages: list) -> str:
    last = messages[-1]["content"]
    if "persuasive" in messages[0]["content"]:        # the persuasiveness signature's instructions
        level = "3" if "Attempt 2" not in last else "1"   # 3 is off the 0-2 scale: re-asked once
        return f"[[ ## rating ## ]]\n{level}\n\n[[ ## completed ## ]]"
    return "[[ ## rationale ## ]]\nOk.\n\n[[ ## rating ## ]]\n2\n\n[[ ## completed ## ]]"


@pytest.fixture
def server(fake_openai):
    return fake_openai(_reply)


def judge(tmp_path, server, *extra):
    t, o = tmp_path / "t.jsonl", tmp_path / f"o{len(extra)}.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURE), "--out", str(t)])
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "1",
                 "--set", "lm.model=openai/fake", "--set", f"lm.api_base={server.url}",
                 "--set", f"lm.cache_dir={tmp_path / 'lm'}", *extra]) == 0
    return o


def test_persuasiveness_is_rated_once_per_transcript_with_a_re_ask(tmp_path, server):
    out = judge(tmp_path, server, "--persuasiveness")
    [rec] = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(server.calls) == 12 + 2                                # 12 factors + persuasiveness twice
    assert rec["persuasiveness"] == 1 and rec["persuasiveness_attempts"]["attempts"] == 2
    assert rec["core_avg"] == 2.0
    assert read_ratings(out)["persuasiveness"].tolist() == [1.0]


def test_the_rating_alone_is_asked(tmp_path, server):
    judge(tmp_path, server, "--persuasiveness")
    [system, *_] = [c for c in server.calls if "persuasive" in c[0]["content"]][0]
    assert "[persuasive-v2]" in system["content"] and "rationale" not in system["content"]


def test_off_by_default_and_absent_rows_are_skipped(tmp_path, server):
    out = judge(tmp_path, server)
    [rec] = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(server.calls) == 12 and "persuasiveness" not in rec
    ratings = read_ratings(out)
    human = ratings[["dialogue_id"]].assign(overall=3.0)
    assert "persuasiveness" not in set(overall_agreement(ratings, human)["score"])
