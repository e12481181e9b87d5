"""No leakage: what a baseline outputs depends only on the public view of a turn.

Each reference dialogue is *poisoned*: gold and acceptable alternatives point at other POIs,
the hidden preferences are rewritten, the user turns' action labels are swapped and every
turn after the predicted one is replaced.  A baseline that read any of these would change its
output; none may.
"""
from __future__ import annotations

import copy

import pytest
from dspy.utils import DummyLM
from test_llm_helpers import make_ctx, make_dialogue, make_kb, reset_dspy  # noqa: F401
from tinykb import DIALOGUES, RESTAURANTS

from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.baselines.registry import NON_LLM, create
from trace_crs.lm.config import resolve_lm_config

REC = ("recommend", "compare")


def poisoned(dialogue: dict, upto: int) -> dict:
    d = copy.deepcopy(dialogue)
    d["scenario"]["hidden_preferences"] = {"style": "thai", "price_max": 4, "noise": "loud", "ambience": ["trendy"],
                                           "features": ["pool"], "anchor": None}
    for t in d["turns"]:
        if "gold_poi_ids" in t:
            t["gold_poi_ids"] = [RESTAURANTS[-1]]
            t["acceptable_alternative_poi_ids"] = list(RESTAURANTS[:3])
        if t["role"] == "user":
            t["action"] = "accept" if t["action"] != "accept" else "reject_and_refine"
    for t in d["turns"][upto + 1:]:
        t["text"] = "FUTURE: I secretly want Taco Loco, cheap and loud."
        t["referenced_poi_ids"] = ["r2"]
    return d


CASES = [(d, i) for d in DIALOGUES for i, t in enumerate(d["turns"]) if t["role"] == "system" and t["action"] in REC]


@pytest.mark.parametrize("dialogue,index", CASES, ids=[f"{d['dialogue_id']}-t{i}" for d, i in CASES])
def test_public_view_is_unchanged_by_poisoning(kb, dialogue, index):
    a = TurnContext.from_dialogue(dialogue, index, tuple(RESTAURANTS), kb)
    b = TurnContext.from_dialogue(poisoned(dialogue, index), index, tuple(RESTAURANTS), kb)
    assert a == b
    assert all(set(t) <= {"turn_id", "role", "text"} for t in a.history if t["role"] == "user")


@pytest.mark.parametrize("name", NON_LLM)
def test_non_llm_outputs_ignore_poisoned_fields(kb, name):
    baseline = create(name)
    baseline.prepare(kb)
    for dialogue, index in CASES:
        clean = baseline.predict(TurnContext.from_dialogue(dialogue, index, tuple(RESTAURANTS), kb))
        dirty = baseline.predict(TurnContext.from_dialogue(poisoned(dialogue, index), index, tuple(RESTAURANTS), kb))
        assert (clean.ranked_poi_ids, clean.text, clean.citations) == (dirty.ranked_poi_ids, dirty.text, dirty.citations)


def test_llm_prompt_ignores_poisoned_fields():
    kb, dialogue = make_kb(), make_dialogue()
    prompts = []
    for d in (dialogue, poisoned(dialogue, 3)):
        lm = DummyLM([{"ranked_ids": ["p1"], "response": "x"}])
        LLMZeroShotBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm).predict(
            TurnContext.from_dialogue(d, 3, ("p1", "p2", "p3", "p4"), kb))
        prompts.append(lm.history[0]["messages"])
    assert prompts[0] == prompts[1]
