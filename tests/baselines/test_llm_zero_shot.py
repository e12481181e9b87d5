"""LLM Zero-Shot and Itinerary-LLM with DummyLM: generative and logprob ranking, citations,
open-set prefilter, retries and the Popularity fallback (values worked out by hand)."""
from __future__ import annotations

import math
import re

from dspy.utils import DummyLM
from test_llm_helpers import make_ctx, make_kb, reset_dspy  # noqa: F401  (autouse fixture)

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.lm.config import resolve_lm_config

P1_R0 = "The handmade pasta was wonderful and the room was quiet enough for a long talk."
CFG = resolve_lm_config({"mode": "generative", "retries": 2, "backoff_s": 0.0})


class LogprobDummyLM(DummyLM):
    """DummyLM that also answers the 1-token yes/no judgements with fixed log P(yes) per POI."""

    def __init__(self, answers, yes_logprob: dict[str, float]):  # noqa: ANN001
        super().__init__(answers)
        self.yes_logprob, self.judged = yes_logprob, []

    def __call__(self, prompt=None, messages=None, **kwargs):  # noqa: ANN001, ANN003
        if kwargs.get("logprobs"):
            pid = re.search(r"Place:\n\[(p\d)\]", messages[-1]["content"]).group(1)
            self.judged.append(pid)
            lp = self.yes_logprob[pid]
            top = [{"token": "Yes", "logprob": lp}, {"token": "No", "logprob": -0.01}, {"token": "yes", "logprob": lp - 1.0}]
            return [{"text": "Yes", "logprobs": {"content": [{"token": "Yes", "logprob": lp, "top_logprobs": top}]}}]
        return super().__call__(prompt, messages=messages, **kwargs)


def test_generative_ranking_and_verbatim_citation():
    # Cards in pool order p1, p2, p3, p4; p1's reviews by stars desc get R1, R2; p2 R3; p3 R4; p4 R5.
    reply = f'Luigi Trattoria fits: "{P1_R0}" [R1]. Also "cheap tacos" [R4] and "made up" [R9].'
    lm = DummyLM([{"ranked_ids": ["p1", "p4"], "response": reply}])
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert out.ranked_poi_ids == ["p1", "p4", "p2", "p3"]
    assert out.text == reply
    assert out.citations == [
        {"label": "R1", "review_id": "p1_r0", "quote": P1_R0, "start": 0, "end": len(P1_R0)},
        {"label": "R4", "review_id": "p3_r0", "quote": "cheap tacos", "start": 15, "end": 26},
    ]  # "Loud music and " is 15 chars; [R9] was never shown: dropped
    assert (out.usage.mode, out.usage.fallback, out.usage.error, out.usage.model) == ("generative", False, "", "dummy")


def test_numbers_are_read_as_card_positions():
    lm = DummyLM([{"ranked_ids": ["3", "[p2]"], "response": "ok"}])
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert out.ranked_poi_ids == ["p3", "p2", "p1", "p4"]


def _popularity_order(kb, rejected):  # independent re-statement of stars × ln(1 + n)
    score = {p: kb.pois[p].stars * math.log1p(kb.pois[p].review_count) for p in kb.pois}
    return sorted(kb.pois, key=lambda p: (p in rejected, -score[p]))


def test_unparseable_ranking_retries_then_falls_back_to_popularity():
    answers = [{"ranked_ids": ["nope"], "response": "x"}] * 3      # 1 attempt + 2 retries
    lm = DummyLM(answers)
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert out.usage.fallback is True
    assert "unparseable ranking" in out.usage.error and "after 3 attempt(s)" in out.usage.error
    assert out.ranked_poi_ids == _popularity_order(make_kb(), {"p2"}) == ["p3", "p1", "p4", "p2"]
    assert out.usage.mode == "generative"


def test_retry_succeeds_on_second_attempt():
    lm = DummyLM([{"ranked_ids": ["zzz"], "response": "x"}, {"ranked_ids": ["p4"], "response": "y"}])
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert (out.usage.fallback, out.ranked_poi_ids[0], out.text) == (False, "p4", "y")


def test_logprob_mode_ranks_by_yes_probability_and_rejects_last():
    logp = {"p1": -0.5, "p2": -0.1, "p3": -3.0, "p4": -0.5}
    lm = LogprobDummyLM([{"response": f'"{P1_R0}" [R1]'}], logp)
    cfg = resolve_lm_config({"mode": "logprob", "retries": 0})
    out = LLMZeroShotBaseline(cfg, lm=lm).predict(make_ctx())
    # log(e^lp + e^(lp-1)) is monotone in lp; p2 best but rejected → last; p1/p4 tie → shuffled order.
    assert sorted(lm.judged) == ["p1", "p2", "p3", "p4"]
    tie = [p for p in lm.judged if p in ("p1", "p4")]
    assert out.ranked_poi_ids == tie + ["p3", "p2"]
    # The reply is written over the top-3 cards; the first card shown gets R1.
    assert out.citations[0]["review_id"] == f"{tie[0]}_r0" or out.citations[0]["quote"] != P1_R0
    assert out.usage.mode == "logprob" and out.usage.fallback is False


def test_open_set_shows_only_the_tfidf_prefilter(monkeypatch):
    import trace_crs.baselines.llm_zero_shot as zs

    monkeypatch.setattr(zs, "PREFILTER_K", 2)
    monkeypatch.setattr("trace_crs.baselines.tfidf.tfidf_scores", lambda ctx: [0.9, 0.1, 0.0, 0.5])
    lm = DummyLM([{"ranked_ids": ["p4", "p1"], "response": "ok"}])
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx(pool="open"))
    prompt = lm.history[-1]["messages"][-1]["content"]
    assert "[p1]" in prompt and "[p4]" in prompt and "[p2]" not in prompt and "[p3]" not in prompt
    # LLM order on the shown 2, then the rest in prefilter order (p2 rejected → after p3).
    assert out.ranked_poi_ids == ["p4", "p1", "p3", "p2"]


def test_unknown_prefilter_is_rejected():
    import pytest

    from trace_crs.baselines.itinerary_llm import ItineraryLLMBaseline
    from trace_crs.baselines.rag_citation import RAGCitationBaseline

    # every baseline with the option refuses it when built (RAG-Citation used to accept it, and
    # fail only at its first open-set turn)
    for cls in (LLMZeroShotBaseline, RAGCitationBaseline, ItineraryLLMBaseline):
        with pytest.raises(ValueError, match=r"prefilter: expected one of \('tfidf', 'dense'\), got 'bm25'"):
            cls(CFG, lm=DummyLM([]), prefilter="bm25")
