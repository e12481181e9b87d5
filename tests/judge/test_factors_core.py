"""Rubric gap decisions and the per-factor / one-call judge with DSPy's DummyLM."""
import re

import pytest
from dspy.utils import DummyLM

from trace_crs.judge.core import rate_all_in_one, rate_factor, rate_transcript
from trace_crs.judge.factors import (
    FACTORS,
    ROLES,
    count_score,
    factors,
    fraction_score,
    guideline,
    role_factors,
    rule_score,
)
from trace_crs.judge.transcript import parse_transcript

T = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                    {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})


def test_twelve_factors_four_dimensions_three_per_role():
    fs = factors()
    assert tuple(fs) == FACTORS and len(FACTORS) == 12
    dims = [f.dimension for f in fs.values()]
    assert sorted({d: dims.count(d) for d in dims}.values()) == [3, 3, 3, 3]
    assert {r: role_factors(r) for r in ROLES} == {
        "common_user": ("coherence", "recoverability", "effectiveness"),        # §4.2
        "domain_expert": ("novelty", "diversity", "groundness"),
        "linguist": ("grammatical_correctness", "naturalness", "appropriateness"),
        "hci_expert": ("proactiveness", "semantic_relevance", "explainability")}
    assert all(f.gaps for f in fs.values())                                     # every factor documents its decisions


@pytest.mark.parametrize("n, score", [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0), (5, 0), (9, 0)])
def test_count_rule_closes_exactly_four(n, score):
    assert count_score(n) == score


@pytest.mark.parametrize("factor", ["coherence", "recoverability", "grammatical_correctness", "groundness"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_count_rubric_text_states_the_rule(factor, n):
    # the level the rule gives n problems names n explicitly ("Exactly n" or "4 or more")
    text = factors()[factor].standard[rule_score(factor, n)]
    assert re.search(rf"\b{n}\b", text), (factor, n, text)
    assert "4 or more" in factors()[factor].standard[0]


@pytest.mark.parametrize("share, generic, semantic", [
    (1.0, 4, 4), (0.8, 3, 3), (0.75, 3, 3), (2 / 3, 3, 2), (0.6, 2, 2), (0.5, 2, 2), (1 / 3, 2, 1), (0.2, 1, 1), (0.0, 0, 0)])
def test_share_rules(share, generic, semantic):
    assert fraction_score(share) == generic == rule_score("proactiveness", share) == rule_score("explainability", share)
    assert rule_score("semantic_relevance", share) == semantic                  # its own 3/4, 1/2 cuts


def test_semantic_relevance_gains_levels_1_and_3():
    std = factors()["semantic_relevance"].standard
    assert "three quarters" in std[3] and "less than half" in std[1] and "no place" in std[0]


def test_appropriateness_levels_1_to_3_are_defined_and_never_offensive():
    std = factors()["appropriateness"].standard
    assert "vulgar" in std[0] and "offensive" in std[0]
    assert "one curt" in std[3] and "more than once" in std[2] and "no vulgar" in std[1]


def test_other_gap_decisions_in_the_guideline():
    assert "Two characteristics in some dimension score 1" in str(factors()["diversity"].gaps)
    assert "At least two different characteristics" in factors()["diversity"].standard[1]
    assert "10 or more" in factors()["novelty"].standard[4] and "from 4 down" in guideline("novelty")
    g = guideline("groundness")
    assert "text of the review it cites" in g and "<cited_reviews>" in g
    assert "Any one ground-truth place" in str(factors()["effectiveness"].gaps)
    assert "restaurants: cuisine" in guideline("diversity") and "hotels: hotel style" in guideline("diversity")
    with pytest.raises(ValueError, match="levels"):
        rule_score("naturalness", 1)


def test_rate_factor_retries_then_scores():
    lm = DummyLM([{"rationale": "a", "rating": "four"}, {"rationale": "b", "rating": "7"},
                  {"rationale": "one miss", "rating": "3"}])
    r = rate_factor(T, "coherence", lm, retries=2)
    assert (r.rating, r.rationale, r.attempts, r.error) == (3, "one miss", 3, None)
    notes = [h["messages"][-1]["content"] for h in lm.history]
    assert "could not be used" not in notes[0] and "Attempt 2" in notes[1] and "Attempt 3" in notes[2]
    assert "not an integer from 0 to 4" in notes[2]                              # the out-of-range 7 is named


def test_rate_factor_records_failure_after_bounded_retries():
    lm = DummyLM([{"rationale": "a", "rating": "x"}] * 5)
    r = rate_factor(T, "groundness", lm, retries=1)
    assert r.rating is None and r.rationale is None and r.attempts == 2 and "AdapterParseError" in r.error
    assert len(lm.history) == 2                                                  # one LM call per attempt


def test_prompt_carries_guideline_and_log():
    lm = DummyLM([{"rationale": "ok", "rating": "4"}])
    rate_factor(T, "diversity", lm)
    prompt = lm.history[0]["messages"][-1]["content"]
    assert "<interaction>" in prompt and "Cafe A" in prompt and 'factor="Diversity"' in prompt


def test_one_call_mode_and_missing_factor():
    full = {"rationales": {n: n for n in FACTORS}, "ratings": {n: 2 for n in FACTORS}}
    got = rate_all_in_one(T, DummyLM([full]))
    assert {r.rating for r in got.values()} == {2} and len(got) == 12 and got["novelty"].rationale == "novelty"
    lacking = {"rationales": {}, "ratings": {n: 1 for n in FACTORS if n != "novelty"}}
    got = rate_all_in_one(T, DummyLM([lacking, lacking]), retries=1)
    assert got["novelty"].rating is None and "novelty" in got["novelty"].error and got["coherence"].rating == 1
    assert got["coherence"].attempts == 2


def test_rate_transcript_per_factor_order_and_mixture_guard():
    lm = DummyLM([{"rationale": n, "rating": str(i % 5)} for i, n in enumerate(FACTORS)])
    got = rate_transcript(T, lm)
    assert [got[n].rating for n in FACTORS] == [i % 5 for i in range(12)]
    assert [got[n].rationale for n in FACTORS] == list(FACTORS)                 # one call per factor, in order
    with pytest.raises(ValueError, match="per-factor mode"):
        rate_transcript(T, {n: DummyLM([]) for n in FACTORS}, mode="one-call")
    with pytest.raises(ValueError, match="mode"):
        rate_transcript(T, lm, mode="both")


def test_unreachable_model_is_an_error_not_a_rating_failure():
    class Down(DummyLM):
        def forward(self, *args, **kwargs):
            raise ConnectionError("judge server down")
    with pytest.raises(ConnectionError):
        rate_factor(T, "coherence", Down([]))
