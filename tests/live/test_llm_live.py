"""An LLM baseline (DummyLM) in the live loop: an ``[Unsolved]`` answer becomes an abstain turn
the user answers with its next preference; a later acceptable recommendation ends the talk."""
from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.dialogues.constraints import meeting as satisfying
from trace_crs.live.loop import converse
from trace_crs.dialogues.constraints import constraints_of
from trace_crs.live.simulator import SimConfig
from trace_crs.lm.config import resolve_lm_config
from trace_crs.runner.tasks import shuffled_pool


@pytest.fixture(autouse=True)
def fresh_dspy():
    """Fresh DSPy settings and an in-memory cache only (no disk writes)."""
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    with dspy.context(lm=None, adapter=None, track_usage=False):
        yield
    dspy.settings.configure(lm=None)


def test_llm_decline_then_acceptable_pick(world):
    kb, dialogues, _ = world
    d = dialogues[2]
    pool = shuffled_pool(d, "closed", 42)  # the order of the cards the model sees
    ok = satisfying([kb.pois[c] for c in pool], constraints_of(d["scenario"]["hidden_preferences"]))
    position = str(pool.index(ok[0]) + 1)  # a card number, read by parse_ranking
    lm = DummyLM([{"ranked_ids": ["[Unsolved]"], "response": "n/a"},
                  {"ranked_ids": [position], "response": f"Try {kb.pois[ok[0]].name}."}])
    system = LLMZeroShotBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm)
    transcript, row, preds = converse(system, "llm_zero_shot", d, kb, cfg=SimConfig(max_turns=3))
    assert [t["action"] for t in transcript["turns"]] == ["greet_and_seek", "abstain", "provide_preference",
                                                          "recommend", "accept"]
    assert transcript["turns"][1]["text"].startswith("[Unsolved]")
    assert transcript["turns"][3]["referenced_poi_ids"] == [ok[0]]
    assert (row["tsr"], row["t2r"], row["n_abstentions"], row["n_fallbacks"]) == (1.0, 2.0, 1, 0)
    assert [p["turn_id"] for p in preds] == [4]


def test_llm_user_rewrites_text_but_decides_as_the_template_user(world):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from scripted import Scripted

    kb, dialogues, _ = world
    d = dialogues[4]
    prof = constraints_of(d["scenario"]["hidden_preferences"])
    ok = satisfying([kb.pois[c] for c in d["candidate_poi_ids"]], prof)
    bad = [c for c in d["candidate_poi_ids"] if c not in ok]
    picks = [bad[0], bad[1], ok[0]]
    system = Scripted(lambda ctx: picks[(ctx.turn_index - 1) // 2])
    template, row_t, _ = converse(system, "s", d, kb, cfg=SimConfig(max_turns=4))
    rewrites = [{"rewritten": "Hello there, looking for a nice spot."},
                {"rewritten": f"Nah, not {kb.pois[bad[0]].name}; something else please."},
                {"rewritten": "Nope, not that one."},  # drops the rejected POI's name: the template text stays
                {"rewritten": f"Lovely, {kb.pois[ok[0]].name} it is."}]
    lm = DummyLM(rewrites)
    live, row_l, _ = converse(system, "s", d, kb, cfg=SimConfig(max_turns=4), user_lm=lm)
    users_t = [t for t in template["turns"] if t["role"] == "user"]
    users_l = [t for t in live["turns"] if t["role"] == "user"]
    assert [t["action"] for t in users_l] == [t["action"] for t in users_t] == \
        ["greet_and_seek", "reject_and_refine", "reject_and_refine", "accept"]
    assert [t["text"] for t in users_l] == [rewrites[0]["rewritten"], rewrites[1]["rewritten"], users_t[2]["text"],
                                            rewrites[3]["rewritten"]]
    assert (row_l["tsr"], row_l["t2r"]) == (row_t["tsr"], row_t["t2r"]) == (1.0, 3.0)
    assert live["metadata"]["live"]["simulator"] == "LLMUser"


def test_llm_asks_in_its_own_words_then_recommends(world):
    """``converse --ask 1``: the LLM is told the [Ask] rule while its question is left, asks
    about the budget in its own words, the user answers from its profile, the next pick is
    accepted; the rule is gone from the prompt once the question is spent."""
    from trace_crs.baselines.ask_rule import ASK_RULE
    from trace_crs.live.ask import Asking
    from trace_crs.live.simulator import state, turn_rng

    kb, dialogues, _ = world
    for d in dialogues:
        prof = constraints_of(d["scenario"]["hidden_preferences"])
        pool = shuffled_pool(d, "closed", 42)
        ok = satisfying([kb.pois[c] for c in pool], prof)
        if ok and sum(c[0] == "price_max" for c in prof) == 1:
            break
    else:
        raise AssertionError("no dialogue of the world has exactly one budget preference")
    position = str(pool.index(ok[0]) + 1)
    lm = DummyLM([{"ranked_ids": ["[Ask]"], "response": "[Ask] Roughly how much would you like to spend?"},
                  {"ranked_ids": [position], "response": f"Try {kb.pois[ok[0]].name}."}])
    inner = LLMZeroShotBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm)
    transcript, row, preds = converse(Asking(inner, 1), "llm_zero_shot", d, kb, cfg=SimConfig(max_turns=3))
    turns = transcript["turns"]
    assert [t["action"] for t in turns] == ["greet_and_seek", "ask_preference", "provide_preference",
                                            "recommend", "accept"]
    assert turns[1]["text"] == "[Ask] Roughly how much would you like to spend?"
    [wish] = [c for c in prof if c[0] == "price_max"]
    assert turns[2]["text"] == state(wish, turn_rng(42, d["dialogue_id"], 2))
    assert (row["tsr"], row["n_questions"], row["n_fallbacks"]) == (1.0, 1, 0)
    prompts = ["\n".join(str(m.get("content")) for m in h["messages"]) for h in lm.history]
    assert len(prompts) == 2 and ASK_RULE in prompts[0] and ASK_RULE not in prompts[1]


def test_replay_instruction_has_no_ask_rule():
    """Replay prompts are unchanged (no [Ask] rule outside the live loop): the same LM cache keys."""
    from trace_crs.baselines.ask_rule import ASK_RULE, may_ask
    from trace_crs.baselines.llm_common import ACTION_INSTRUCTIONS, instruction
    from trace_crs.baselines.unsolved_rule import UNSOLVED_RULE

    assert instruction("recommend") == f"{ACTION_INSTRUCTIONS['recommend']} {UNSOLVED_RULE}"
    with may_ask():
        assert instruction("recommend") == f"{ACTION_INSTRUCTIONS['recommend']} {UNSOLVED_RULE} {ASK_RULE}"
    with may_ask(False):
        assert ASK_RULE not in instruction("compare")
