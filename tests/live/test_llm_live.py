"""An LLM baseline (DummyLM) in the live loop: an ``[Unsolved]`` answer becomes an abstain turn
the user answers with its next preference; a later acceptable recommendation ends the talk."""
from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.kb.satisfaction import satisfying
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
