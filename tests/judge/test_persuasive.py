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


class TopLM:
    """Answers every 1-token request with a fixed top-logprob list; keeps the requests."""

    def __init__(self, top):
        self.top, self.calls = top, []

    def __call__(self, messages, **kw):
        self.calls.append(messages)
        content = [{"token": self.top[0][0], "logprob": self.top[0][1],
                    "top_logprobs": [{"token": t, "logprob": lp} for t, lp in self.top]}]
        return [{"text": self.top[0][0], "logprobs": {"content": content}}]


def test_the_logprob_judge_asks_it_after_the_factor_calls_shared_prefix():
    import math

    from trace_crs.judge.factors import FACTORS
    from trace_crs.judge.run import judge_one, settings_of
    from trace_crs.judge.transcript import parse_transcript

    t = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                        {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})
    # p(2) = 0.5, p(1) = 0.25; "4" is off the 0-2 scale: normalised p(2) = 2/3, p(1) = 1/3
    lm = TopLM([("2", math.log(0.5)), ("1", math.log(0.25)), ("4", math.log(0.25))])
    lms = {n: lm for n in FACTORS}
    settings = settings_of({n: "m" for n in FACTORS}, "logprob", "avg", 0, 0, persuasiveness=True)
    rec = judge_one(t, lms, settings)
    assert settings["persuasiveness"] == "persuasive-v3" and len(lm.calls) == len(FACTORS) + 1
    *factors, persuasive = lm.calls
    assert persuasive[0] == factors[-1][0]                        # the same system message
    log = t.log()
    assert persuasive[1]["content"].startswith(log) and factors[-1][1]["content"].startswith(log)
    assert "Persuasiveness score (0-2):" in persuasive[1]["content"][len(log):]   # only the question differs
    assert rec["persuasiveness"] == pytest.approx(2 * 2 / 3 + 1 / 3, abs=1e-4)   # rounded to 4 digits
    assert rec["persuasiveness_attempts"] == {"attempts": 1, "truncated": False, "error": None}
    greedy = judge_one(t, lms, settings_of({n: "m" for n in FACTORS}, "logprob", "avg", 0, 0,
                                           persuasiveness=True, rating="greedy"))
    assert greedy["persuasiveness"] == 2


def test_a_logprob_reply_without_a_level_is_a_failure():
    from trace_crs.judge.geval import judge_prefix
    from trace_crs.judge.persuasive import rate_persuasiveness_logprob
    from trace_crs.judge.transcript import parse_transcript

    t = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "Hi"},
                                                        {"role": "assistant", "text": "Hello"}]})
    got = rate_persuasiveness_logprob(t, TopLM([("4", -0.1), ("Yes", -2.0)]), "expected", judge_prefix())
    assert got["rating"] is None and "no rating digit" in got["error"]
