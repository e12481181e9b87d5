"""The logprob judge (trace_crs.judge.geval): the rating distribution from a top-logprob list,
hand-worked; the prompt layout shares everything but the factor's question; the judge's records."""
import math

import pytest

from trace_crs.judge.core import rate_transcript
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.geval import (
    expected_score,
    factor_messages,
    greedy_score,
    judge_prefix,
    rate_by_logprobs,
    rating_distribution,
)
from trace_crs.judge.transcript import parse_transcript

T = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                    {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})


def test_distribution_hand_worked():
    # p(4) = 0.5 + 0.1 (" 4" is the same digit), p(2) = 0.2, "Yes" and "7" are not ratings
    pairs = [("4", math.log(0.5)), (" 4", math.log(0.1)), ("2", math.log(0.2)), ("Yes", math.log(0.15)),
             ("7", math.log(0.05))]
    dist, mass = rating_distribution(pairs)
    assert mass == pytest.approx(0.8)
    assert dist == pytest.approx([0, 0, 0.25, 0, 0.75])
    assert expected_score(dist) == pytest.approx(2 * 0.25 + 4 * 0.75)   # 3.5
    assert greedy_score(dist) == 4


def test_no_digit_is_none_and_ties_go_low():
    assert rating_distribution([("The", -0.1), ("I", -2.0)]) is None
    assert greedy_score([0, 0.5, 0, 0.5, 0]) == 1


def test_calls_share_all_but_the_question():
    a, b = factor_messages(judge_prefix(), T.log(), "coherence"), factor_messages(judge_prefix(), T.log(), "novelty")
    assert a[0] == b[0]                                         # the system message: instructions + 12 guidelines
    assert all(f'name="{n}"' in a[0]["content"] for n in FACTORS)
    shared = len(T.log())
    assert a[1]["content"][:shared] == b[1]["content"][:shared] == T.log()   # then the conversation
    assert a[1]["content"] != b[1]["content"]


class FakeLogprobLM:
    """Answers every 1-token request with a fixed top list; records what it was asked."""

    def __init__(self, top):
        self.top, self.calls = top, []

    def __call__(self, messages, **kw):
        self.calls.append((messages, kw))
        content = [{"token": self.top[0][0], "logprob": self.top[0][1],
                    "top_logprobs": [{"token": t, "logprob": lp} for t, lp in self.top]}]
        return [{"text": self.top[0][0], "logprobs": {"content": content}}]


def test_one_one_token_call_per_factor_and_both_ratings():
    lm = FakeLogprobLM([("3", math.log(0.6)), ("1", math.log(0.4))])
    got = rate_transcript(T, lm, mode="logprob", rating="expected")
    assert len(lm.calls) == len(FACTORS)
    assert all(kw["max_tokens"] == 1 and kw["logprobs"] for _, kw in lm.calls)
    assert [r.rating for r in got.values()] == pytest.approx([0.6 * 3 + 0.4 * 1] * len(FACTORS))
    assert all(r.scores["greedy"] == 3 and r.rationale is None for r in got.values())
    greedy = rate_transcript(T, lm, mode="logprob", rating="greedy")
    assert {r.rating for r in greedy.values()} == {3}


def test_a_reply_without_a_digit_is_a_failure_not_a_score():
    got = rate_by_logprobs(T, "coherence", FakeLogprobLM([("Sure", -0.1)]), "expected")
    assert got["rating"] is None and "no rating digit" in got["error"]
