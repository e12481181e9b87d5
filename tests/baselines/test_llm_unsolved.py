"""TravelBench's ``[Unsolved]`` answer (seed 003): an LLM baseline that declines abstains — an
empty ranking and a reply carrying the marker — instead of being retried and replaced by the
Popularity fallback.  DummyLM answers; a real failure still falls back."""
from __future__ import annotations

import pytest
from dspy.utils import DummyLM
from test_llm_helpers import make_ctx, reset_dspy  # noqa: F401  (autouse fixture)

from trace_crs.baselines.llm_common import Unsolved, parse_ranking
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.dialogues.unsolvable import ABSTAIN_TEXT
from trace_crs.lm.config import resolve_lm_config
from trace_crs.metrics.abstention import abstains

CFG = resolve_lm_config({"mode": "generative", "retries": 2, "backoff_s": 0.0})


@pytest.mark.parametrize("raw", ["[Unsolved]", ["[unsolved]"], "[ Unsolved ]", ["Unsolved"]])
def test_parse_ranking_reads_the_marker_as_a_decline(raw):
    with pytest.raises(Unsolved):
        parse_ranking(raw, ["p1", "p2"])


def test_a_named_candidate_wins_over_a_stray_marker_in_the_ranking():
    assert parse_ranking(["p2", "[Unsolved]"], ["p1", "p2"]) == ["p2", "p1"]


@pytest.mark.parametrize("ranking", [["[Unsolved]"], "[Unsolved]", "[Unsolved] nothing fits"])
def test_marker_as_the_ranking_abstains_without_retry_or_fallback(ranking):
    lm = DummyLM([{"ranked_ids": ranking, "response": "No place fits."}])  # one answer: a retry would fail
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert (out.ranked_poi_ids, out.text, out.citations) == ([], ABSTAIN_TEXT, [])
    assert (out.usage.fallback, out.usage.error) == (False, "") and abstains(out.text)


def test_marker_in_the_reply_abstains():
    reply = "[Unsolved] Nothing here is open at 3 am."
    lm = DummyLM([{"ranked_ids": ["p1", "p3"], "response": reply}])
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert (out.ranked_poi_ids, out.text, out.usage.fallback) == ([], reply, False)


def test_an_unparseable_answer_still_falls_back():
    lm = DummyLM([{"ranked_ids": ["nope"], "response": "x"}] * 3)
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert out.usage.fallback is True and out.ranked_poi_ids and not abstains(out.text)
