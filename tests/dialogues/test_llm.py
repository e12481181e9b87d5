"""The LLM generator end to end with dspy.utils.DummyLM (no network, no model)."""
import copy

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.llm import DialogueGenerator, GenerateDialogue, generate_llm, generate_one


@pytest.fixture(autouse=True)
def reset_dspy():
    dspy.configure(lm=None, adapter=None)
    yield
    dspy.configure(lm=None, adapter=None)


@pytest.fixture(scope="module")
def reference(tiny_kb):
    return generate_simulated(tiny_kb, 3, seed=42)[2]


def answer(d, mangle=False):
    """The model's JSON output for a dialogue: turns without citations/gold, plus multi-reference."""
    keys = ("turn_id", "role", "text", "action", "referenced_poi_ids", "referenced_review_ids")
    turns = [{k: t[k] for k in keys} for t in d["turns"]]
    if mangle:  # a fabricated, non-verbatim quote in the first recommend turn
        i = next(i for i, t in enumerate(d["turns"]) if t["action"] == "recommend")
        quote = d["turns"][i]["citations"][0]["quote"]
        turns[i]["text"] = turns[i]["text"].replace(quote, "Honestly the best meal of my entire life, zero complaints", 1)
    multi = {str(t["turn_id"]): t["acceptable_alternative_poi_ids"] for t in d["turns"] if "gold_poi_ids" in t}
    return {"turns": turns, "multi_reference": multi}


def base_of(d):
    b = copy.deepcopy(d)
    del b["turns"]
    b["metadata"] = {**b["metadata"], "generator": "llm", "model": "dummy"}
    return b


def test_signature_carries_v2_rules():
    doc = GenerateDialogue.__doc__
    for rule in ("6-12 turns", "strict user/system alternation", "greet_and_seek", "farewell", "ask_preference",
                 "reject_and_refine", "at least 3 distinct", "compare", "EXACT verbatim", "[Rn]"):
        assert rule in doc


def test_valid_output_accepted_and_equal_to_reference(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=2)
    assert log == {"dialogue_id": reference["dialogue_id"], "tier": reference["scenario"]["difficulty"], "retries": 0}
    assert d["turns"] == reference["turns"]  # citations re-derived from the text match the simulator's exactly


def test_invalid_output_retried_then_accepted(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference, mangle=True), answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=2)
    assert d is not None and d["metadata"]["retries"] == 1 and log["retries"] == 1


def test_invalid_output_retried_then_recorded_failed(tiny_kb, reference):
    rejections = sum(t["action"] == "reject_and_refine" for t in reference["turns"])
    with dspy.context(lm=DummyLM([answer(reference, mangle=True)] * 2)):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), rejections, max_retries=1)
    assert d is None and log["failed"] is True and log["retries"] == 1
    assert len(log["reasons"]) == 2 and any(r.startswith("quote_mismatch") for r in log["reasons"][0])


def test_wrong_rejection_count_is_a_failure(tiny_kb, reference):
    with dspy.context(lm=DummyLM([answer(reference)])):
        d, log = generate_one(DialogueGenerator(), tiny_kb, base_of(reference), 5, max_retries=0)
    assert d is None and any(r.startswith("rejections:") for r in log["reasons"][0])


def test_generate_llm_records_failures(tiny_kb, reference):
    # the dummy answer references another scenario's candidates -> every attempt fails validation
    accepted, failures = generate_llm(tiny_kb, 1, "dummy", max_retries=1, lm=DummyLM([answer(reference)] * 2))
    assert accepted == [] and len(failures) == 1 and failures[0]["dialogue_id"] == "crs_yelp_00001"


def test_near_verbatim_quote_is_snapped_to_the_review_span(tiny_kb):
    from trace_crs.dialogues.llm import _citations
    # review r00_r0 = "Great pasta here. The room was quiet all evening."; one typo in the quote
    text, cites = _citations('Try it: "The room was quite all evening." [R1]', ["r00_r0"], tiny_kb)
    assert cites == [{"label": "R1", "review_id": "r00_r0", "quote": "The room was quiet all evening.",
                      "start": 18, "end": 49}]
    assert text == 'Try it: "The room was quiet all evening." [R1]'
    _, none = _citations("no quotes at all", [], tiny_kb)
    assert none == []
