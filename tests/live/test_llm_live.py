"""An LLM baseline (DummyLM) in the live loop: an ``[Unsolved]`` answer becomes an abstain turn
the user answers with its next preference; a later acceptable recommendation ends the talk."""
from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.dialogues.constraints import meeting as satisfying
from trace_crs.live.loop import converse
from trace_crs.live.simulator import SimConfig, profile
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
    ok = satisfying([kb.pois[c] for c in pool], profile(d["scenario"]["hidden_preferences"]))
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
    prof = profile(d["scenario"]["hidden_preferences"])
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
