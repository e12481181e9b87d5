"""Integration (marker ``llm``): start the real llama.cpp server on the SmolLM2-135M weights,
complete one dialogue turn with LLM Zero-Shot (choice ranking + generated reply), check the
server is stopped afterwards, and replay the turn from the disk cache alone."""
from __future__ import annotations

import importlib.util
import socket
import time

import pytest
from test_llm_helpers import make_ctx, reset_dspy  # noqa: F401

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.weights import weights_path

WEIGHTS = "smollm2-135m-instruct-q4_1"
pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                       reason="llama-cpp-python not installed (make llama)"),
    pytest.mark.skipif(not weights_path(WEIGHTS).exists(),
                       reason=f"{weights_path(WEIGHTS)} absent (make models-smoke)"),
]


def test_local_server_completes_a_turn_and_replays_from_cache(tmp_path):
    cfg = resolve_lm_config({"weights": WEIGHTS, "max_tokens": 16, "n_ctx": 2048, "retries": 0,
                             "cache_dir": str(tmp_path / "lm")})
    base = LLMZeroShotBaseline(cfg)
    base.prepare(None)
    port = int(base._lm.kwargs["api_base"].rsplit(":", 1)[1].split("/")[0])
    try:
        out = base.predict(make_ctx())
    finally:
        base.close()
    assert out.usage.fallback is False, out.usage.error
    assert sorted(out.ranked_poi_ids) == ["p1", "p2", "p3", "p4"] and out.ranked_poi_ids[-1] == "p2"  # rejected last
    assert out.text.strip() and out.usage.mode == "choice"
    assert out.usage.model.endswith("sha256-b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53")
    assert out.usage.prompt_tokens > 0 and out.usage.completion_tokens > 0
    with socket.socket() as s:                                   # the server is gone
        assert s.connect_ex(("127.0.0.1", port)) != 0

    # Replay with the server gone: every call must come from the disk cache, or it would fail.
    baseline = LLMZeroShotBaseline(cfg, lm=build_lm(cfg, api_base=f"http://127.0.0.1:{port}/v1"))
    started = time.perf_counter()
    replay = baseline.predict(make_ctx())
    replay_wall = time.perf_counter() - started
    assert replay.usage.fallback is False, replay.usage.error
    assert (replay.ranked_poi_ids, replay.text) == (out.ranked_poi_ids, out.text)
    # all cache hits (the server is gone), reported with the usage measured when they were made:
    # same tokens; seconds beyond the replay's own wall time (this test's stopwatch) = the calls'
    # recorded model time, which is part of the first turn's latency
    assert (replay.usage.prompt_tokens, replay.usage.completion_tokens) == (out.usage.prompt_tokens, out.usage.completion_tokens)
    assert 0 < replay.usage.latency_s - replay_wall <= out.usage.latency_s
