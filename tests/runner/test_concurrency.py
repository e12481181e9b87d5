"""Concurrent LLM turns (runner.llm_pool): records do not depend on concurrency; Memory-Aug.'s
memory does not depend on evaluation order."""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pyarrow.parquet as pq
import pytest
import yaml
from runhelpers import llm_config

from trace_crs.baselines.memory import MemoryAugmentedBaseline
from trace_crs.kb import load_kb
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.fake_server import serve
from trace_crs.runner.llm_pool import API_CONCURRENCY, auto_concurrency
from trace_crs.runner.run import RunConfig, evaluate
from trace_crs.runner.tasks import load_evaluated, turn_contexts


def records(out):
    return pq.read_table(out / "records.parquet").drop(["latency_s"])


def without_cache_dir(out):
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    cfg["lm"].pop("cache_dir")   # each run asks the model itself (its own LM cache)
    return cfg


def test_records_are_identical_at_concurrency_1_8_64(corpus, llm_env, tmp_path):
    outs, served = [], []
    with serve() as server:
        for n in (1, 8, 64):
            before = server.stats()["requests"]
            cfg = llm_config(corpus, server.api_base, tmp_path / f"lm{n}", concurrency=n, subset=8)   # own LM cache
            manifest = evaluate(cfg, tmp_path / f"c{n}", workers=1, progress=False)
            served.append(server.stats()["requests"] - before)
            outs.append(tmp_path / f"c{n}")
    assert served[0] > 60 and served[0] == served[1] == served[2]        # every run asked the model itself
    assert manifest["n_records"] == 8 * 2 * 6 and manifest["faults"]["dst"] == {}
    ref = records(outs[0])
    assert sum(ref.column("fallback").to_pylist()) == 0 and min(ref.column("cost_usd").to_pylist()) > 0
    for out in outs[1:]:
        assert records(out).equals(ref)
        for name in ("llm_zero_shot", "memory", "dst"):
            assert (out / "predictions" / f"{name}.jsonl").read_bytes() == \
                   (outs[0] / "predictions" / f"{name}.jsonl").read_bytes()
        assert without_cache_dir(out) == without_cache_dir(outs[0])


def test_execution_settings_stay_out_of_the_run_config_and_may_change_on_resume(corpus, llm_env, tmp_path):
    with serve() as server:
        evaluate(llm_config(corpus, server.api_base, tmp_path / "lm", baselines="mrs", concurrency=2),
                 tmp_path / "run", workers=1, progress=False)
        again = llm_config(corpus, server.api_base, tmp_path / "lm", baselines="mrs", concurrency=5, max_cost_usd=9.0)
        assert evaluate(again, tmp_path / "run", workers=1, progress=False)["complete"]
    saved = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert "concurrency" not in saved and "max_cost_usd" not in saved


def test_auto_concurrency_and_bad_values():
    # local: one dialogue per llama.cpp server process (lm.servers, else one per thread)
    assert auto_concurrency(None, {"model": "local", "n_threads": 2, "servers": 0}) == 2
    assert auto_concurrency(None, {"model": "local", "n_threads": 2, "servers": 1}) == 1
    assert auto_concurrency(0, {"model": "openai/gpt-5.4-mini"}) == API_CONCURRENCY == 64
    assert auto_concurrency(256, {"model": "local"}) == 256
    with pytest.raises(ValueError, match="concurrency"):
        RunConfig(concurrency=-1)
    with pytest.raises(ValueError, match="max_cost_usd"):
        RunConfig(max_cost_usd=-0.5)


def test_cli_concurrency_flag_set_key_and_llm_processes(corpus, llm_env, tmp_path, capsys):
    from trace_crs.cli import main

    with serve() as server:
        args = ["evaluate", "--kb", corpus[0], "--dialogues", corpus[1], "--baselines", "mrs", "--quiet",
                "--set", "lm.model=openai/gpt-4o-mini", "--set", f"lm.api_base={server.api_base}",
                "--set", f"lm.cache_dir={tmp_path / 'lm'}", "--set", "lm.mode=generative"]
        assert main(args + ["--set", "concurrency=4", "--workers", "1", "--out", str(tmp_path / "a")]) == 0
        assert main(args + ["--concurrency", "16", "--workers", "2", "--chunk-size", "2", "--out", str(tmp_path / "b")]) == 0
    assert not (tmp_path / "a" / "records" / "mrs" / "00001.parquet").exists()   # one chunk of 50
    assert len(list((tmp_path / "b" / "records" / "mrs").glob("*.parquet"))) == 6   # 2 processes, 3 chunks each
    assert records(tmp_path / "a").equals(records(tmp_path / "b"))


def memory_outputs(kb, contexts, api_base, cache_dir, order, threads=1):
    """Memory-Aug. outputs and prompts per turn key, predicting ``contexts`` in ``order``."""
    cfg = resolve_lm_config({"model": "openai/gpt-4o-mini", "api_base": api_base, "mode": "generative",
                             "cache_dir": str(cache_dir)})
    base = MemoryAugmentedBaseline(cfg, lm=build_lm(cfg))
    base.see_corpus(contexts)
    notes = {}

    def one(ctx):
        out = base.predict(ctx)
        notes[(ctx.dialogue_id, ctx.turn_id)] = base.module.notes(ctx, [])
        return (ctx.dialogue_id, ctx.turn_id), (out.ranked_poi_ids, out.text)

    with ThreadPoolExecutor(threads) as pool:
        return dict(pool.map(one, [contexts[i] for i in order])), notes


def test_memory_visible_to_dialogue_i_is_built_from_the_dialogues_before_it(corpus, llm_env, tmp_path):
    kb = load_kb(corpus[0])
    contexts = [c for d in load_evaluated(corpus[1], None, 42) for c in turn_contexts(d, kb, "closed", 42)]
    with serve() as server:
        forward, notes = memory_outputs(kb, contexts, server.api_base, tmp_path / "a", range(len(contexts)))
        order = list(range(len(contexts)))
        random.Random(7).shuffle(order)
        shuffled, notes2 = memory_outputs(kb, contexts, server.api_base, tmp_path / "b", order[::-1], threads=8)
    assert forward == shuffled and notes == notes2
    ids = list(dict.fromkeys(c.dialogue_id for c in contexts))
    persona = {c.dialogue_id: c.persona_type for c in contexts}
    written = {c.dialogue_id: set(c.user_texts) for c in contexts}   # after a dialogue's last turn
    for ctx in contexts:
        k = ids.index(ctx.dialogue_id)
        earlier = set().union(*(written[d] for d in ids[:k] if persona[d] == ctx.persona_type))
        remembered = {line[2:] for line in notes[(ctx.dialogue_id, ctx.turn_id)].splitlines()[1:]}
        assert remembered <= earlier
        assert bool(remembered) == (k > 0 and bool(earlier) and bool(remembered))
    assert notes[(ids[0], 4)] == notes[(ids[1], 4)] == ""     # no earlier session of their persona
    assert sum(bool(n) for n in notes.values()) >= 10


def test_see_corpus_runs_in_the_background_and_gates_only_its_baseline():
    import threading

    import pytest

    from trace_crs.runner.llm_pool import see_corpus_later

    release, seen = threading.Event(), []

    class Remembers:
        def see_corpus(self, contexts):
            release.wait(10)            # still embedding when see_corpus_later returns
            seen.append(list(contexts))

    class Fails:
        def see_corpus(self, contexts):
            raise RuntimeError("embedding failed")

    background, gates = see_corpus_later({"memory": Remembers(), "llm_zero_shot": object()}, None, [], "closed", 42)
    assert set(gates) == {"memory"} and not gates["memory"].done()
    release.set()
    gates["memory"].result(timeout=10)
    assert seen == [[]]
    background.shutdown()
    background, gates = see_corpus_later({"memory": Fails()}, None, [], "closed", 42)
    with pytest.raises(RuntimeError, match="embedding failed"):
        gates["memory"].result(timeout=10)          # a memory job re-raises it instead of running blind
    background.shutdown()
    assert see_corpus_later({"memory": Remembers()}, None, None, "closed", 42) == (None, {})
