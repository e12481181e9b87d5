"""The live loop's outcome rows on hand-worked conversations, schema-valid transcripts, and
agreement with the replay scorer on the same transcripts."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scripted import Scripted  # noqa: E402

from trace_crs.baselines.registry import create  # noqa: E402
from trace_crs.dialogues.schema import check_dialogue  # noqa: E402
from trace_crs.dialogues.constraints import meeting as satisfying  # noqa: E402
from trace_crs.live.loop import converse  # noqa: E402
from trace_crs.live.scores import live_summary  # noqa: E402
from trace_crs.dialogues.constraints import constraints_of  # noqa: E402
from trace_crs.live.simulator import SimConfig  # noqa: E402
from trace_crs.metrics.score import ScoreConfig, score_predictions  # noqa: E402


def split_pool(kb, d):
    prof = constraints_of(d["scenario"]["hidden_preferences"])
    ok = satisfying([kb.pois[c] for c in d["candidate_poi_ids"]], prof)
    return [c for c in d["candidate_poi_ids"] if c not in ok], ok


def sequence(picks):
    """A system answering turn k (k = 0, 1, …) with ``picks[k]``."""
    return Scripted(lambda ctx: picks[(ctx.turn_index - 1) // 2])


def test_two_rejections_then_success(world):
    kb, dialogues, _ = world
    d = next(d for d in dialogues if len(split_pool(kb, d)[0]) >= 2)
    bad, ok = split_pool(kb, d)
    transcript, row, preds = converse(sequence([bad[0], bad[1], ok[0]]), "s", d, kb, cfg=SimConfig(max_turns=4))
    assert [t["action"] for t in transcript["turns"]] == ["greet_and_seek", "recommend", "reject_and_refine",
                                                          "recommend", "reject_and_refine", "recommend", "accept"]
    # hits per system turn [0, 0, 1]: TSR 1, T2R 3; recovery turns 4 (miss) and 6 (hit): 1/2
    assert (row["tsr"], row["t2r"], row["turns_to_success"]) == (1.0, 3.0, 3.0)
    assert (row["recovery_hits"], row["recovery_episodes"], row["rejection_recovery"]) == (1, 2, 0.5)
    assert (row["n_system_turns"], row["n_rejections"], row["accepted_poi_id"]) == (3, 2, ok[0])
    assert [p["turn_id"] for p in preds] == [2, 4, 6]
    gold = [t["gold_poi_ids"] for t in transcript["turns"] if t["role"] == "system"]
    assert all(g[0] in ok for g in gold) and gold[2] == [ok[0]]


def test_abstention_is_a_turn_without_success(world):
    kb, dialogues, _ = world
    d = dialogues[3]
    _, ok = split_pool(kb, d)
    transcript, row, preds = converse(sequence([None, ok[0]]), "s", d, kb, cfg=SimConfig(max_turns=4))
    assert [t["action"] for t in transcript["turns"]] == ["greet_and_seek", "abstain", "provide_preference",
                                                          "recommend", "accept"]
    assert (row["tsr"], row["t2r"], row["n_abstentions"], row["recovery_episodes"]) == (1.0, 2.0, 1, 0)
    assert math.isnan(row["rejection_recovery"]) and [p["turn_id"] for p in preds] == [4]


def test_a_failing_system_gets_the_popularity_fallback(world):
    kb, dialogues, _ = world

    def boom(ctx):
        raise RuntimeError("down")
    transcript, row, _ = converse(Scripted(boom), "s", dialogues[0], kb, cfg=SimConfig(max_turns=2))
    assert row["n_fallbacks"] == row["n_system_turns"] >= 1
    assert transcript["turns"][1]["action"] == "recommend"


@pytest.mark.parametrize("name", ["tfidf", "knowledge"])
def test_transcripts_are_schema_valid_and_replay_scoring_agrees(world, name):
    kb, dialogues, _ = world
    system = create(name)
    system.prepare(kb)
    runs = [converse(system, name, d, kb) for d in dialogues]
    transcripts = [r[0] for r in runs]
    preds = [p for r in runs for p in r[2]]
    outcomes = pd.DataFrame([r[1] for r in runs])
    for t in transcripts:
        check_dialogue(t)
        for turn in t["turns"]:
            for c in turn["citations"]:
                assert kb.reviews[c["review_id"]].text[c["start"]:c["end"]] == c["quote"]
    replay = score_predictions(kb, transcripts, preds, ScoreConfig()).aggregate["metrics"]
    agg, per_dialogue = live_summary(kb, transcripts, preds, outcomes, ScoreConfig())
    for k in ("tsr", "t2r", "rejection_recovery"):
        assert agg["metrics"][k] == pytest.approx(replay[k])
    assert agg["metrics"]["hit@1"] == pytest.approx(outcomes["tsr"].sum() / outcomes["n_system_turns"].sum())
    assert "bleu4" not in agg["metrics"] and agg["metrics"]["abstention_rate"] == 0.0
    assert len(per_dialogue) == len(dialogues) and per_dialogue["cgs"].notna().all()


class SlowTfidf:
    """TF-IDF whose replies come back out of order when asked several at a time (an earlier
    request sleeps longer): each answer depends on its request alone."""

    def __init__(self, kb):
        self.inner, self.calls = create("tfidf"), 0
        self.inner.prepare(kb)

    def predict(self, ctx):
        import time

        self.calls += 1
        time.sleep(0.003 * (7 - self.calls % 7))
        return self.inner.predict(ctx)


def test_a_round_asked_at_once_gives_the_conversations_of_one_at_a_time(world):
    from trace_crs.live.loop import converse_many

    kb, dialogues, _ = world
    runs = [
        converse_many(SlowTfidf(kb), "tfidf", dialogues[:8], kb, cfg=SimConfig(max_turns=4), concurrency=c)
        for c in (1, 4)
    ]
    assert [t for t, _, _ in runs[0]] == [t for t, _, _ in runs[1]]
    assert pd.DataFrame([r for _, r, _ in runs[0]]).equals(pd.DataFrame([r for _, r, _ in runs[1]]))  # NaN-aware
    assert [p for _, _, p in runs[0]] == [p for _, _, p in runs[1]]
    assert sum(len(t["turns"]) for t, _, _ in runs[0]) > 2 * 8  # more than one round was played


def test_memory_aug_live_rounds_asked_at_once_send_the_requests_of_one_at_a_time(world, hashed_word_embeddings, recording_lm):
    """Memory-Aug. (cross-session memory), asking in its own words (live.ask.Asking): the memory a
    turn retrieves must not depend on which lane asks first (its ``warm`` fixes each round)."""
    from trace_crs.baselines.memory import MemoryAugmentedBaseline
    from trace_crs.live.ask import Asking
    from trace_crs.live.loop import converse_many
    from trace_crs.lm.config import resolve_lm_config

    kb, dialogues, _ = world
    sent, transcripts = [], []
    for c in (1, 2):
        lm = recording_lm({"ranked_ids": ["none"], "response": "Here you go."})
        system = Asking(MemoryAugmentedBaseline(resolve_lm_config({"mode": "generative", "retries": 0}), lm=lm), 1)
        runs = converse_many(system, "memory", dialogues[:6], kb, cfg=SimConfig(max_turns=3), concurrency=c)
        sent.append(sorted(lm.sent))
        transcripts.append([t for t, _, _ in runs])
    assert sent[0] == sent[1] and transcripts[0] == transcripts[1]
    assert len(sent[0]) > 6 and any("Remembered preferences" in s for s in sent[0])


class ThreadNoting(SlowTfidf):
    """SlowTfidf that notes which thread asked each conversation's turns."""

    def __init__(self, kb):
        super().__init__(kb)
        self.threads: dict[str, set[int]] = {}

    def predict(self, ctx):
        import threading

        self.threads.setdefault(ctx.dialogue_id, set()).add(threading.get_ident())
        return super().predict(ctx)


def test_each_conversation_is_asked_from_one_thread(world):
    """A local server is bound to its calling thread: a conversation's turns stay on one server."""
    from trace_crs.live.loop import converse_many

    kb, dialogues, _ = world
    system = ThreadNoting(kb)
    transcripts = converse_many(system, "tfidf", dialogues[:6], kb, cfg=SimConfig(max_turns=4), concurrency=2)
    assert all(len(t["turns"]) > 2 for t, _, _ in transcripts)  # several rounds
    assert all(len(ids) == 1 for ids in system.threads.values())
    assert len(set().union(*system.threads.values())) == 2


def test_a_reply_quoting_one_review_twice_is_one_citation_of_the_prediction(world):
    """An LLM reply that quotes R1 twice (two quotes, one review) is a valid prediction: it cites R1
    once (as the closed runner's records do), so scoring the live run accepts it."""
    kb, dialogues, _ = world
    d = dialogues[0]
    top = d["candidate_poi_ids"][0]
    r1, r2 = [r.review_id for r in kb.reviews_of(top)][:2]

    class Quoting(Scripted):
        def predict(self, ctx):
            out = super().predict(ctx)
            out.citations = [{"label": "R1", "review_id": r1, "quote": "a"}, {"label": "R2", "review_id": r2, "quote": "b"},
                             {"label": "R1", "review_id": r1, "quote": "c"}]
            return out
    transcript, _, preds = converse(Quoting(lambda ctx: top), "s", d, kb, cfg=SimConfig(max_turns=2))
    assert preds[0]["citations"] == [{"label": "R1", "review_id": r1}, {"label": "R2", "review_id": r2}]
    assert score_predictions(kb, [transcript], preds, ScoreConfig()).aggregate["n_turns"] == len(preds)
