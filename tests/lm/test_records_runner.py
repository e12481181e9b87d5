"""LM records under the runner: ``trace-crs evaluate``'s concurrent LLM turns (8 threads, records
named by ``TRACE_LM_RECORDS`` as make sets it) recorded against the fake server, then evaluated
again with no server at all: the same records.parquet (usage columns included) and predictions."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

import dspy
import pyarrow.parquet as pq

from trace_crs.kb.store import dump_jsonl
from trace_crs.lm import records as rec
from trace_crs.lm.fake_server import serve
from trace_crs.runner.run import evaluate

TESTS = Path(__file__).parents[1]
sys.path[:0] = [str(TESTS / "baselines"), str(TESTS / "runner")]
import runhelpers  # noqa: E402
from tinykb import RESTAURANTS, dialogue, tiny_kb  # noqa: E402


def test_an_evaluation_replayed_from_the_records_without_a_server_is_the_same(monkeypatch, tmp_path):
    from trace_crs.baselines import memory

    monkeypatch.setattr(memory, "embed", runhelpers.hash_embed)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv(rec.ENV, str(tmp_path / "records"))
    rows = [dialogue(f"crs_rec_{i:05d}", [f"Hi, dinner {i}?", runhelpers.TEXTS[i % 6], "Not that one."],
                     [RESTAURANTS[i % 8], RESTAURANTS[(i + 3) % 8]], reject_first=True) for i in range(6)]
    dump_jsonl(rows, tmp_path / "dialogues.jsonl")
    tiny_kb(tmp_path / "kb")
    corpus = (str(tmp_path / "kb"), str(tmp_path / "dialogues.jsonl"))

    def run(url: str, name: str) -> Path:
        rec.close_all()
        rec._STORES.clear()                                  # a new process: records read afresh
        dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
        cfg = runhelpers.llm_config(corpus, url, tmp_path / f"lm-{name}", concurrency=8)   # own LM cache
        evaluate(cfg, tmp_path / name, workers=1, progress=False)
        return tmp_path / name

    try:
        with serve() as server:
            computed = run(server.api_base, "computed")
            assert server.stats()["requests"] > 20
        with socket.socket() as s:                           # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            replayed = run(f"http://127.0.0.1:{s.getsockname()[1]}/v1", "replayed")
    finally:
        rec.close_all()
        rec._STORES.clear()
        dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    a, b = (pq.read_table(d / "records.parquet").drop(["latency_s"]) for d in (computed, replayed))
    assert sum(b.column("fallback").to_pylist()) == 0 and min(b.column("prompt_tokens").to_pylist()) > 0
    assert a.equals(b)
    for p in sorted((computed / "predictions").iterdir()):
        assert p.read_bytes() == (replayed / "predictions" / p.name).read_bytes()
