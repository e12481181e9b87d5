"""The judged turn subset (Appendix U: every baseline on the same seeded turns) and the judge's usage."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import dspy
import pytest
from dspy.utils import DummyLM

from tests.metrics.conftest import dialogue, turn
from trace_crs.config import ScoreConfig
from trace_crs.lm.backend import build_lm, configure_disk_cache
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.fake_server import serve
from trace_crs.metrics.judge import COLUMNS, SCALES, judge_columns, judge_lm_overrides, judged_turns
from trace_crs.metrics.score import score_predictions
from trace_crs.dialogues.subset import select_subset

RATING = {"relevance": 5, "informativeness": 4, "grounding_quality": 3, "natural_flow": 2, "justification": 1}


def _corpus(n: int = 12) -> list[dict]:
    """Dialogues with 1-3 recommend/compare turns each (plus user turns that are never judged)."""
    out = []
    for i in range(n):
        turns = [turn(1, "user", "greet_and_seek", "Somewhere to eat.")]
        for k in range(1 + i % 3):
            turns += [turn(2 + 2 * k, "system", "recommend" if k % 2 == 0 else "compare", f"Try P{k + 1}.", gold=["P1"]),
                      turn(3 + 2 * k, "user", "reject_and_refine", "Something else.")]
        out.append(dialogue(f"crs_yelp_{i:05d}", turns))
    return out


def _preds(corpus: list[dict], text: str) -> dict:
    return {(d["dialogue_id"], t["turn_id"]): {"dialogue_id": d["dialogue_id"], "turn_id": t["turn_id"],
                                                 "ranked_poi_ids": ["P1"], "text": f"{text} ({d['dialogue_id']})",
                                                 "citations": []}
            for d in corpus for t in d["turns"] if t["role"] == "system"}


def test_judged_dialogues_are_the_runner_subset_and_turns_are_rec_turns():
    corpus = _corpus()
    got = judged_turns(corpus, 4, 42)
    # the same dialogues `trace-crs evaluate --subset 4 --seed 42` evaluates (an LLM run's dialogues)
    assert [d for d, _ in got] == [d["dialogue_id"] for d in select_subset(corpus, 4, 42)]
    by_id = {d["dialogue_id"]: d for d in corpus}
    for did, tid in got:
        t = next(t for t in by_id[did]["turns"] if t["turn_id"] == tid)
        assert t["role"] == "system" and t["action"] in ("recommend", "compare")
    assert judged_turns(corpus, 4, 42) == got                         # deterministic
    assert len(judged_turns(corpus, 99, 42)) == len(corpus)           # n >= corpus: one turn of every dialogue
    assert judged_turns(corpus, 0, 42) == [] and judged_turns([], 3, 42) == []


def _judged_keys(corpus, scored, preds, kb, n=4, seed=42):
    scores = score_predictions(kb, scored, preds, ScoreConfig())
    lm = DummyLM([RATING] * n)
    cols, usage = judge_columns(kb, corpus, preds, scores.per_turn, lm, n=n, seed=seed)
    rows = scores.per_turn.join(cols).dropna(subset=["judge_overall"])
    return list(zip(rows["dialogue_id"], rows["turn_id"])), rows, usage


def test_same_turns_for_every_baseline_whatever_the_run_or_prediction_order(kb):
    corpus = _corpus()
    expected = judged_turns(corpus, 4, 42)
    # a non-LLM baseline scored on the whole corpus
    full, rows, usage = _judged_keys(corpus, corpus, _preds(corpus, "Template P1."), kb)
    # an LLM baseline whose run evaluated the seeded 4-dialogue subset, predictions in reverse order
    subset = select_subset(corpus, 4, 42)
    rev = dict(reversed(list(_preds(subset, "A different answer about P1.").items())))
    llm, _, _ = _judged_keys(corpus, subset, rev, kb)
    assert full == llm == expected
    assert usage["n_turns"] == 4 and usage["n_failed"] == 0 and usage["n"] == 4
    # every scale as rated, overall = mean of the five = (5+4+3+2+1)/5
    assert list(rows[[f"judge_{s}" for s in SCALES]].iloc[0]) == [5, 4, 3, 2, 1]
    assert set(rows["judge_overall"]) == {3.0}


def test_turns_outside_the_scored_dialogues_are_skipped_and_failures_counted(kb):
    corpus = _corpus()
    expected = judged_turns(corpus, 4, 42)
    scored = [d for d in corpus if d["dialogue_id"] in {expected[0][0], expected[1][0]}]
    preds = _preds(scored, "P1.")
    scores = score_predictions(kb, scored, preds, ScoreConfig())
    lm = DummyLM([RATING, {**RATING, "relevance": 9}])                  # the second answer is out of range
    cols, usage = judge_columns(kb, corpus, preds, scores.per_turn, lm, n=4, seed=42)
    assert (usage["n_turns"], usage["n_failed"]) == (2, 1)
    assert cols["judge_overall"].notna().sum() == 1 and list(cols.columns) == COLUMNS


def test_judge_names():
    assert judge_lm_overrides("local") == ["model=local"]
    assert judge_lm_overrides("qwen2.5-coder-0.5b-instruct-q4_k_m") == ["model=local", "weights=qwen2.5-coder-0.5b-instruct-q4_k_m"]
    assert judge_lm_overrides("openai/gpt-4o-mini") == ["model=openai/gpt-4o-mini"]
    assert judge_lm_overrides("model=openai/x, api_base=http://127.0.0.1:1/v1") == ["model=openai/x", "api_base=http://127.0.0.1:1/v1"]


JUDGE_REPLY = "".join(f"[[ ## {k} ## ]]\n{v}\n\n" for k, v in RATING.items()) + "[[ ## completed ## ]]"


def _usage(calls: list) -> tuple[int, int]:
    """(prompt, completion) tokens the fake server reports for ``calls``: 4 characters a token."""
    prompt = sum(math.ceil(sum(len(str(m.get("content") or "")) for m in msgs) / 4) for msgs in calls)
    return prompt, len(calls) * math.ceil(len(JUDGE_REPLY) / 4)


@pytest.fixture
def judge_server():
    """``trace_crs.lm.fake_server`` answering every judge request with :data:`JUDGE_REPLY` in
    DSPy's chat format; ``.calls`` holds each request's messages."""
    calls: list = []

    def rate(messages):
        calls.append(messages)
        return JUDGE_REPLY

    with serve(reply=rate) as server:
        yield SimpleNamespace(url=server.api_base, calls=calls)


def test_judge_usage_is_recorded_and_replayed(kb, judge_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")         # the fake endpoint ignores it
    corpus = _corpus()
    preds = _preds(corpus, "P1.")
    scores = score_predictions(kb, corpus, preds, ScoreConfig())
    cfg = resolve_lm_config({"model": "openai/judge-x", "api_base": judge_server.url, "cache_dir": str(tmp_path / "lm")})
    configure_disk_cache(cfg.cache_dir)
    cols, usage = judge_columns(kb, corpus, preds, scores.per_turn, build_lm(cfg), n=3, seed=42)
    assert len(judge_server.calls) == 3 and cols["judge_relevance"].notna().sum() == 3
    # the tokens the endpoint reported for the 3 calls
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (3, *_usage(judge_server.calls))
    assert usage["model"] == "openai/judge-x" and usage["seconds"] > 0
    again_cols, again = judge_columns(kb, corpus, preds, scores.per_turn, build_lm(cfg), n=3, seed=42)
    assert len(judge_server.calls) == 3 and again == usage                 # a replay reports the measured usage
    assert again_cols.equals(cols)
    assert not math.isnan(cols["judge_overall"].dropna().iloc[0])


def test_score_cli_records_judge_usage_in_the_score_file(kb_dir, judge_server, tmp_path, monkeypatch):
    from trace_crs.cli import main
    from trace_crs.kb.store import dump_jsonl

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    corpus = _corpus(6)
    dump_jsonl(corpus, tmp_path / "d.jsonl")
    dump_jsonl(list(_preds(corpus, "P1.").values()), tmp_path / "p.jsonl")
    judge = f"model=openai/judge-x,api_base={judge_server.url},cache_dir={tmp_path / 'lm'}"
    argv = ["score", "--kb", str(kb_dir), "--dialogues", str(tmp_path / "d.jsonl"), "--predictions",
            str(tmp_path / "p.jsonl"), "--set", f"judge={judge}", "--judge-n", "2", "--out", str(tmp_path / "s.json")]
    assert main(argv) == 0
    agg = json.loads((tmp_path / "s.json").read_text())
    u = agg["judge_usage"]
    assert len(judge_server.calls) == 2
    assert (u["n"], u["n_turns"], u["calls"], u["prompt_tokens"], u["completion_tokens"]) == (2, 2, 2, *_usage(judge_server.calls))
    assert agg["metrics"]["judge_overall"] == 3.0 and agg["metrics"]["judge_relevance"] == 5.0
    first = (tmp_path / "s.json").read_bytes()
    assert main(argv) == 0 and (tmp_path / "s.json").read_bytes() == first   # replayed: byte-identical


def test_judging_turns_at_once_gives_the_columns_of_one_at_a_time(kb):
    corpus = _corpus()
    preds = _preds(corpus, "Try P1.")
    scores = score_predictions(kb, corpus, preds, ScoreConfig())
    # each judged dialogue its own rating (keyed by the dialogue id in the response), one out of range
    ids = [d for d, _ in judged_turns(corpus, 6, 42)]
    answers = {f"({did})": {**RATING, "relevance": 1 + k} for k, did in enumerate(ids)}
    runs = [
        judge_columns(kb, corpus, preds, scores.per_turn, DummyLM(answers), n=6, seed=42, workers=w) for w in (1, 3)
    ]
    (one, usage_one), (many, usage_many) = runs
    assert one.equals(many) and usage_one == usage_many
    assert (usage_one["n_turns"], usage_one["n_failed"]) == (6, 1)  # relevance 6 is out of range
    assert sorted(one["judge_relevance"].dropna()) == [1.0, 2.0, 3.0, 4.0, 5.0]
