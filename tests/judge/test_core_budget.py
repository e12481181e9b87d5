"""A judge that finishes (CoRE App. E lengths): a reply cut at max_tokens keeps its rating when
the rating comes first; a reply cut before its rating is retried with twice the token budget;
the cuts are counted per factor.  Through the real backend against the fake server."""
from __future__ import annotations

import dspy
import pytest

from trace_crs.judge.core import MAX_BUDGET_FACTOR, PROMPT_VERSION, RateFactor, rate_factor
from trace_crs.judge.transcript import parse_transcript
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.fake_server import FakeConfig, serve

T = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                    {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})
LONG = " ".join(["The reply names one cafe and says nothing about quiet."] * 12)
RATING_LAST = f"[[ ## rationale ## ]]\n{LONG}\n\n[[ ## rating ## ]]\n3\n\n[[ ## completed ## ]]"
RATING_FIRST = f"[[ ## rating ## ]]\n2\n\n[[ ## rationale ## ]]\n{LONG}\n\n[[ ## completed ## ]]"


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-not-a-key")
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)


def _lm(server, budgets: list):
    cfg = resolve_lm_config({"model": "openai/fake-judge", "api_base": server.api_base, "backoff_s": 0.0})
    lm = build_lm(cfg)
    forward = lm.forward

    def spy(prompt=None, messages=None, **kwargs):
        budgets.append(kwargs.get("max_tokens", lm.kwargs["max_tokens"]))
        return forward(prompt, messages, **kwargs)

    lm.forward = spy
    return lm


def test_prompt_puts_the_conversation_before_the_guideline_and_the_rating_first():
    assert list(RateFactor.input_fields) == ["conversation", "guideline", "note"]
    assert list(RateFactor.output_fields) == ["rating", "rationale"]
    assert PROMPT_VERSION == "core-v2" and "[core-v2]" in RateFactor.__doc__


def test_cut_before_the_rating_is_retried_with_twice_the_budget():
    budgets: list = []
    with serve(FakeConfig(schedule=("length",)), reply=lambda messages: RATING_LAST) as server:
        r = rate_factor(T, "coherence", _lm(server, budgets), retries=2)
        assert server.stats()["length"] == 1 and server.stats()["requests"] == 2
    assert (r.rating, r.attempts, r.truncated, r.error, r.failed_attempts) == (3, 2, 1, None, 1)
    assert budgets == [600, 1200]                     # the LM's max_tokens, then doubled


def test_cut_after_the_rating_keeps_the_rating_and_counts_the_cut():
    budgets: list = []
    with serve(FakeConfig(schedule=("length",)), reply=lambda messages: RATING_FIRST) as server:
        r = rate_factor(T, "coherence", _lm(server, budgets), retries=2)
    assert (r.rating, r.attempts, r.truncated, r.failed_attempts) == (2, 1, 1, 0)
    assert r.rationale and len(r.rationale) < len(LONG)          # the cut rationale, kept as given
    assert budgets == [600]


def test_always_cut_fails_after_bounded_retries_with_capped_budgets():
    budgets: list = []
    with serve(FakeConfig(rates={"length": 1.0}), reply=lambda messages: RATING_LAST) as server:
        r = rate_factor(T, "novelty", _lm(server, budgets), retries=3)
    assert r.rating is None and r.attempts == 4 and r.truncated == 4 and r.failed_attempts == 4
    assert "cut at max_tokens=2400" in r.error
    assert budgets == [600, 1200, 2400, 600 * MAX_BUDGET_FACTOR]  # doubled, capped at 4x


def test_per_factor_prompts_share_system_message_and_conversation_as_a_prefix():
    from dspy.utils import DummyLM

    from trace_crs.judge.core import rate_transcript

    lm = DummyLM([{"rating": "1", "rationale": "r"}] * 12)
    rate_transcript(T, lm)
    prompts = ["\n".join(m["content"] for m in h["messages"]) for h in lm.history]
    assert len(prompts) == 12 and len({p[: p.rindex("[[ ## guideline ## ]]")] for p in prompts}) == 1
    shared = prompts[0][: prompts[0].rindex("[[ ## guideline ## ]]")]
    assert T.log() in shared                   # everything up to the guideline is common to the 12 calls


def test_attempt_counts_per_factor():
    from trace_crs.judge.core import FactorResult, attempt_counts

    got = attempt_counts({"a": FactorResult("a", 3, "r", 2, truncated=1), "b": FactorResult("b", None, None, 3, "e", 3)})
    assert got == {"attempts": {"a": 2, "b": 3}, "failed_attempts": {"a": 1, "b": 3}, "truncated": {"a": 1, "b": 3}}
