"""CoRE-Avg, the mixture of evaluators and the debate's round structure and stopping rule."""
import json
import math

import pytest
from dspy.utils import DummyLM

from trace_crs.errors import DataError
from trace_crs.judge.aggregate import core_avg, load_mixture, mixture
from trace_crs.judge.core import FactorResult
from trace_crs.judge.debate import debate
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.transcript import parse_transcript

T = parse_transcript({"dialogue_id": "d", "turns": [{"role": "user", "text": "A quiet cafe?"},
                                                    {"role": "assistant", "text": "Try Cafe A.", "items": ["Cafe A"]}]})


def results(ratings):
    return {n: FactorResult(n, r, f"why {n}" if r is not None else None, 1, None if r is not None else "boom")
            for n, r in zip(FACTORS, ratings)}


def test_core_avg_hand_values_and_failure():
    assert core_avg(results([4] * 12)) == 4.0
    assert core_avg(results([0, 1, 2, 3, 4, 4, 4, 4, 0, 0, 2, 0])) == pytest.approx(24 / 12)
    assert core_avg(results([4] * 11 + [None])) is None                      # never averaged over a failure


def test_mixture_picks_each_factor_from_its_judge(tmp_path):
    a, b = results([1] * 12), results([3] * 12)
    choice = {n: ("a" if i % 2 == 0 else "b") for i, n in enumerate(FACTORS)}
    got = mixture({"a": a, "b": b}, choice)
    assert [got[n].rating for n in FACTORS] == [1, 3] * 6 and core_avg(got) == 2.0
    with pytest.raises(ValueError, match="without results"):
        mixture({"a": a}, choice)
    p = tmp_path / "m.yaml"
    p.write_text("judges: {a: {model: local}, b: {model: openai/x}}\ndefault: a\nfactors: {groundness: b}\n")
    judges, ch = load_mixture(p)
    assert judges["b"] == {"model": "openai/x"} and ch["groundness"] == "b" and ch["coherence"] == "a"
    p.write_text("judges: {a: {}}\nfactors: {groundness: c}\ndefault: a\n")
    with pytest.raises(DataError, match="'c'"):
        load_mixture(p)
    p.write_text("judges: {a: {}}\nfactors: {coherence: a}\n")
    with pytest.raises(DataError, match="no judge for"):
        load_mixture(p)


def test_paper_mixture_table_is_complete():
    from importlib import resources
    _, choice = load_mixture(resources.files("trace_crs.judge").joinpath("data/mixture_paper.yaml"))
    assert choice["groundness"] == "glm-4-air" and choice["coherence"] == "qwen3-32b" and len(choice) == 12


def say(score, text="s"):
    return {"statement": text, "score": str(score)}


def test_debate_stops_on_unanimity_after_round_two():
    lm = DummyLM([say(20), say(40), say(30), say(10), say(30), say(30), say(30), say(30)] + [say(0)] * 8)
    r = debate(T, results([2] * 12), lm)
    assert (r.rounds, r.unanimous, r.score, len(r.chat), len(lm.history)) == (2, True, 30.0, 8, 8)
    assert [c["evaluator"] for c in r.chat[:4]] == ["Common User", "Domain Expert", "Linguist", "HCI Expert"]
    assert [c["round"] for c in r.chat] == [1] * 4 + [2] * 4


def test_debate_stops_after_four_rounds_with_mean_of_last_round():
    answers = [say(s) for rnd in range(4) for s in (10 + rnd, 50, 60, 90)]
    r = debate(T, results([2] * 12), DummyLM(answers))
    assert (r.rounds, r.unanimous, len(r.chat)) == (4, False, 16)
    assert r.score == pytest.approx((13 + 50 + 60 + 90) / 4)                 # last round only


def test_debate_rounds_are_simultaneous_and_roles_see_only_their_factors():
    lm = DummyLM([say(s, f"r1-{i}") for i, s in enumerate((20, 40, 30, 10))] + [say(50)] * 4)
    debate(T, results(list(range(5)) + list(range(5)) + [1, 2]), lm)
    prompts = [h["messages"][-1]["content"] for h in lm.history]
    assert all("r1-" not in p for p in prompts[:4])                          # nobody sees a same-round peer
    assert all(all(f"r1-{i}" in p for i in range(4)) for p in prompts[4:])   # everyone sees all of round 1
    assert '"Effectiveness"' in prompts[0] and '"Groundness"' not in prompts[0]
    assert '"Groundness"' in prompts[1] and '"Naturalness"' in prompts[2] and '"Explainability"' in prompts[3]
    assert "why coherence" in prompts[0] and "why coherence" not in prompts[3]


def test_debate_failure_is_recorded_not_scored():
    lm = DummyLM([say(20), say(40), {"statement": "x", "score": "lots"}, {"statement": "x", "score": "101"}])
    r = debate(T, results([2] * 12), lm, retries=1)
    assert r.score is None and "Linguist, round 1" in r.error and "0 to 100" in r.error and len(r.chat) == 2


def test_debate_sees_failed_factor_as_unscored():
    lm = DummyLM([say(50)] * 4)
    debate(T, results([None] + [2] * 11), lm)
    block = lm.history[0]["messages"][-1]["content"]
    assert "the evaluator failed: boom" in block
    assert json.loads(block.split("[[ ## evaluation_result ## ]]")[1].split("[[ ##")[0])[0]["score"] is None
    assert not math.isnan(debate(T, results([2] * 12), DummyLM([say(50)] * 4)).score)
