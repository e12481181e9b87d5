"""LM config presets, the one-flag backbone switch, the disk cache (record/replay against a
fake OpenAI-compatible HTTP server) and per-turn usage."""
from __future__ import annotations

import os
from types import SimpleNamespace

import dspy
import pytest

from trace_crs.baselines.dst import DSTBaseline
from trace_crs.baselines.itinerary_llm import ItineraryLLMBaseline
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.baselines.memory import MemoryAugmentedBaseline
from trace_crs.baselines.mrs import MultiReviewSynthesisBaseline
from trace_crs.baselines.rag_citation import RAGCitationBaseline
from trace_crs.lm.backend import build_lm, configure_disk_cache, model_id
from trace_crs.lm.config import lm_config_from_yaml, resolve_lm_config
from trace_crs.lm.fake_server import serve
from trace_crs.lm.usage import recording_usage, usage_store

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
LLM_BASELINES = [LLMZeroShotBaseline, DSTBaseline, RAGCitationBaseline, MultiReviewSynthesisBaseline,
                 MemoryAugmentedBaseline, ItineraryLLMBaseline]
QWEN15_SHA = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


@pytest.fixture(autouse=True)
def reset_dspy():
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    with dspy.context(lm=None):
        yield


def test_default_is_local_qwen_auto_with_the_weights_hash_in_the_model_id():
    cfg = resolve_lm_config()
    assert (cfg.preset, cfg.model, cfg.mode, cfg.max_tokens, cfg.temperature) == ("local", "local", "auto", 600, 0.0)
    assert model_id(cfg) == f"openai/qwen2.5-coder-1.5b-instruct-q4_k_m-sha256-{QWEN15_SHA}"


@pytest.mark.parametrize("cls", LLM_BASELINES)
def test_setting_only_the_model_switches_every_llm_baseline(cls):
    base = cls(lm_config={"model": "openai/gpt-5.4-mini"})
    lm = base.configured_lm()                       # built, never called: no network
    assert lm.model == "openai/gpt-5.4-mini"
    assert lm.kwargs["temperature"] == 1.0
    assert 16000 in (lm.kwargs.get("max_tokens"), lm.kwargs.get("max_completion_tokens"))
    assert "api_base" not in lm.kwargs and base.lm_config.mode == "generative"
    assert base.mode == ("generative" if base.ranks_with_llm else "pipeline")


def test_other_api_model_gets_the_600_token_preset_and_explicit_keys_win():
    cfg = resolve_lm_config({"model": "anthropic/claude-haiku-4-5"}, ["temperature=0.2"])
    assert (cfg.preset, cfg.max_tokens, cfg.temperature, cfg.mode) == ("api", 600, 0.2, "generative")


@pytest.mark.parametrize("data, match", [
    ({"mode": "beam"}, "lm.mode"),
    ({"preset": "nope"}, "unknown lm preset"),
    ({"tempreature": 1.0}, "unknown key"),
    ({"max_tokens": 0}, "max_tokens"),
])
def test_bad_config_is_a_clear_error(data, match):
    with pytest.raises(ValueError, match=match):
        resolve_lm_config(data)


def test_llama_threads_are_auto_unless_set():
    # 0 = auto, resolved when the servers start (tests/lm/test_server_pool.py): config.yaml
    # must not depend on the machine's load
    assert resolve_lm_config().n_threads == 0 and resolve_lm_config().servers == 0
    assert resolve_lm_config({"n_threads": 3}).n_threads == 3
    with pytest.raises(ValueError, match="servers"):
        resolve_lm_config({"servers": -1})


def test_yaml_block(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("lm:\n  model: openai/gpt-5.4-mini\n")
    assert lm_config_from_yaml(path).max_tokens == 16000
    path.write_text("lm: [1]\n")
    with pytest.raises(ValueError, match="'lm': expected a mapping"):
        lm_config_from_yaml(path)


@pytest.fixture
def fake_server():
    """``trace_crs.lm.fake_server`` answering ``echo <n>`` to its n-th request; ``.calls`` holds the messages."""
    calls: list = []

    def echo(messages):
        calls.append(messages)
        return f"echo {len(calls)}"

    with serve(reply=echo) as server:
        yield SimpleNamespace(url=server.api_base, calls=calls)


def test_disk_cache_replays_across_processes_and_keys_on_weights(fake_server, tmp_path):
    calls, fake_server = fake_server.calls, fake_server.url
    msgs = [{"role": "user", "content": "hello"}]
    cfg = resolve_lm_config({"weights": "smollm2-135m-instruct-q4_1", "cache_dir": str(tmp_path / "lm")})
    configure_disk_cache(cfg.cache_dir)
    with recording_usage() as first:
        out1 = build_lm(cfg, api_base=fake_server)(messages=msgs)
    assert out1 == ["echo 1"] and len(calls) == 1
    assert build_lm(cfg, api_base=fake_server).model.endswith("sha256-b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53")
    # the fake server counts 4 characters a token: "hello" (5) -> 2, "echo 1" (6) -> 2
    assert (first.calls, first.cache_hits, first.prompt_tokens, first.completion_tokens) == (1, 0, 2, 2)

    # A "new process": fresh cache object on the same directory, a different server port.
    dspy.configure_cache(enable_disk_cache=False)
    configure_disk_cache(cfg.cache_dir)
    with recording_usage() as replay:
        out2 = build_lm(cfg, api_base=fake_server.replace("/v1", "/v1/")) (messages=msgs)
    assert out2 == ["echo 1"] and len(calls) == 1                       # served from disk
    # a replay reports the usage measured when the request went to the model (fake: 2 + 2 tokens)
    assert (replay.calls, replay.cache_hits, replay.prompt_tokens, replay.completion_tokens) == (1, 1, 2, 2)
    assert replay.model_s == replay.replayed_s == first.model_s > 0 and first.replayed_s == 0

    # Cached before usage was recorded: measured once more (the model is called, its answer is
    # not used: the cached one is returned), then recorded.
    usage_store(cfg.cache_dir).clear()
    with recording_usage() as remeasured:
        assert build_lm(cfg, api_base=fake_server)(messages=msgs) == ["echo 1"]
    assert len(calls) == 2 and (remeasured.cache_hits, remeasured.prompt_tokens) == (1, 2)
    assert remeasured.replayed_s == 0 and remeasured.model_s > 0
    assert build_lm(cfg, api_base=fake_server)(messages=msgs) == ["echo 1"]   # no tally: pure replay
    assert len(calls) == 2

    other = resolve_lm_config({"weights": "qwen2.5-coder-0.5b-instruct-q4_k_m", "cache_dir": cfg.cache_dir})
    assert build_lm(other, api_base=fake_server)(messages=msgs) == ["echo 3"]     # other weights: miss
    hotter = resolve_lm_config({"weights": cfg.weights, "cache_dir": cfg.cache_dir, "temperature": 0.5})
    assert build_lm(hotter, api_base=fake_server)(messages=msgs) == ["echo 4"]    # other params: miss
    assert len(calls) == 4


def test_connection_refused_falls_back_to_popularity(monkeypatch):
    import socket
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "baselines"))
    from test_llm_helpers import make_ctx

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    with socket.socket() as s:                      # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = resolve_lm_config({"model": "openai/test", "api_base": f"http://127.0.0.1:{port}/v1", "retries": 1,
                             "backoff_s": 0.0, "timeout_s": 5, "mode": "generative"})
    base = LLMZeroShotBaseline(cfg, lm=build_lm(cfg))
    out = base.predict(make_ctx())
    assert out.usage.fallback is True and "after 2 attempt(s)" in out.usage.error
    assert "Connection" in out.usage.error or "connect" in out.usage.error.lower()
    assert out.usage.model == "openai/test" and out.ranked_poi_ids == ["p3", "p1", "p4", "p2"]
