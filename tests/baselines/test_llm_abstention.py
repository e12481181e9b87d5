"""LLM baselines on the unsolvable set: the [Unsolved] rule is in every prompt (TravelBench
Fig. 14), a decline is read from the answer, and precision / recall / F1 / false-abstention rate
come out as hand-computed."""

from __future__ import annotations

import math

import dspy
import pytest
from dspy.utils import DummyLM

from trace_crs.baselines.abstain import decline_table
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.baselines.unsolved_rule import UNSOLVED_RULE
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.unsolvable import build_unsolvable
from trace_crs.kb.store import KB
from trace_crs.kb.synthetic import build_synthetic
from trace_crs.lm.config import resolve_lm_config
from trace_crs.metrics.abstention import decline_scores


@pytest.fixture(autouse=True)
def fresh_dspy():
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with dspy.context(lm=None, adapter=None, track_usage=False):
        yield


@pytest.fixture(scope="module")
def world():
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    dialogues = generate_simulated(kb, 12, seed=42)
    return kb, dialogues, build_unsolvable(kb, dialogues, 5, seed=42)


def test_rule_in_prompt_and_scores(world):
    kb, dialogues, items = world
    unsolvable, solvable = items[:2], dialogues[:2]
    decline = {"ranked_ids": ["[Unsolved]"], "response": "[Unsolved] Nothing fits."}
    answer = {"ranked_ids": ["1"], "response": "Try the first one."}
    lm = DummyLM([decline, answer, decline, answer])  # in order: unsolvable 1, 2, solvable 1, 2
    system = LLMZeroShotBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm)
    table = decline_table(kb, unsolvable, solvable, {"llm_zero_shot": system})
    assert table["declined"].tolist() == [True, False, True, False]
    assert table["reason"].tolist()[:2] == [i["unsolvable"]["reason"] for i in unsolvable]
    assert table["reason"].tolist()[2:] == ["solvable", "solvable"] and not table["fallback"].any()
    prompts = [" ".join(str(m["content"]) for m in h["messages"]) for h in lm.history]
    assert len(prompts) == 4 and all(UNSOLVED_RULE in p for p in prompts)
    [row] = decline_scores(table).to_dict("records")
    # TP = 1, FP = 1, FN = 1: precision = recall = F1 = 1/2; FP / 2 solvable = 1/2
    assert (row["tp"], row["fp"], row["fn"]) == (1, 1, 1)
    assert row["precision"] == row["recall"] == row["f1"] == row["false_abstention_rate"] == 0.5
    assert row[f"recall_{unsolvable[0]['unsolvable']['reason']}"] == 1.0


def test_no_decline_gives_nan_precision(world):
    import pandas as pd

    table = pd.DataFrame(
        {
            "baseline": ["x", "x"],
            "unsolvable": [True, False],
            "reason": ["live_data", "solvable"],
            "declined": [False, False],
            "fallback": [False, True],
        }
    )
    [row] = decline_scores(table).to_dict("records")
    assert math.isnan(row["precision"]) and row["recall"] == 0.0 and row["false_abstention_rate"] == 0.0
    assert row["n_fallbacks"] == 1 and row["recall_live_data"] == 0.0


class SlowEcho:
    """A system whose answer depends on its request alone and whose replies come back out of
    order (the later items answer faster): declines on odd-numbered requests' opening turns."""

    def __init__(self, n: int):
        self.n, self.seen = n, 0

    def predict(self, ctx):
        import time

        from trace_crs.baselines.base import BaselineOutput

        self.seen += 1
        time.sleep(0.002 * (self.n - self.seen % self.n))
        decline = len(ctx.history[0].get("text", "")) % 2 == 1 if ctx.history else False
        return BaselineOutput([] if decline else list(ctx.candidates[:1]), "[Unsolved]" if decline else "ok")


def test_asking_items_at_once_keeps_the_rows_of_one_at_a_time(world):
    kb, dialogues, items = world
    tables = [
        decline_table(kb, items, dialogues[:6], {"a": SlowEcho(11), "b": SlowEcho(11)}, concurrency=c) for c in (1, 4)
    ]
    assert len(tables[0]) == 2 * (len(items) + 6)
    assert tables[0].equals(tables[1])


class Learner(SlowEcho):
    """A :class:`SlowEcho` that learns from the corpus: records what it saw and when."""

    def __init__(self, n: int):
        super().__init__(n)
        self.events: list[tuple[str, list[str]]] = []

    def see_corpus(self, contexts):
        self.events.append(("see_corpus", [c.dialogue_id for c in contexts]))

    def predict(self, ctx):
        self.events.append(("predict", [ctx.dialogue_id]))
        return super().predict(ctx)


def test_a_corpus_learner_sees_every_first_request_in_item_order_before_any_is_asked(world):
    kb, dialogues, items = world
    learner = Learner(7)
    decline_table(kb, items[:3], dialogues[:2], {"a": SlowEcho(7), "m": learner}, concurrency=4)
    kind, ids = learner.events[0]
    assert kind == "see_corpus" and ids == [d["dialogue_id"] for d in [*items[:3], *dialogues[:2]]]
    assert [k for k, _ in learner.events[1:]] == ["predict"] * 5


def test_memory_prompts_do_not_depend_on_how_many_items_are_asked_at_once(world, hashed_word_embeddings, recording_lm):
    import trace_crs.baselines.memory as mem

    kb, dialogues, items = world
    sent = []
    for concurrency in (1, 4):
        lm = recording_lm({"ranked_ids": ["1"], "response": "ok"})
        system = mem.MemoryAugmentedBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm)
        decline_table(kb, items, dialogues[:6], {"memory": system}, concurrency=concurrency)
        sent.append(sorted(lm.sent))
    assert len(sent[0]) == len(items) + 6 and sent[0] == sent[1]
    assert any("Remembered preferences" in s for s in sent[0])  # the memory is not empty
