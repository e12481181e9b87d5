"""The fake OpenAI-compatible server (lm.fake_server) and the fault handling it exercises (lm.faults)."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import urllib.request

import dspy
import pytest
from dspy.adapters.chat_adapter import ChatAdapter

from trace_crs.baselines.llm_zero_shot import RankAndRespond
from trace_crs.lm import faults
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.fake_answers import answer, request_hash
from trace_crs.lm.fake_server import FAULTS, FakeConfig, FakeLMServer, serve
from trace_crs.lm.ranking import score_fit
from trace_crs.lm.usage import recording_usage

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
PLACES = '[p7] Luigi (Italian)\n  [R1] "The handmade pasta was wonderful and the room was quiet enough for a long talk."\n[p3] Taco Loco'


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-not-a-key")
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    yield


def chat_body(places: str = PLACES) -> dict:
    msgs = ChatAdapter().format(RankAndRespond, demos=[], inputs={"conversation": "Traveler: pasta please",
                                                                   "places": places, "instruction": "Recommend."})
    return {"model": "m", "messages": msgs}


def lm_for(server: FakeLMServer, **kw):
    cfg = resolve_lm_config({"model": "openai/gpt-4o-mini", "api_base": server.api_base, "timeout_s": 0.5,
                             "backoff_s": 0.0, **kw})
    return build_lm(cfg)


def test_answer_is_parsed_by_dspy_and_a_function_of_the_messages():
    content, logprobs = answer(chat_body())
    parsed = ChatAdapter().parse(RankAndRespond, content)
    assert logprobs is None and sorted(parsed["ranked_ids"]) == ["p3", "p7"]       # the prompt's ids, no R1
    # the reply quotes the labelled excerpt verbatim: its first 12 words
    assert '"The handmade pasta was wonderful and the room was quiet enough for" [R1]' in parsed["response"]
    assert answer(chat_body()) == (content, None)
    assert answer(chat_body(PLACES.replace("Taco", "Tacos")))[0] != content
    assert request_hash(chat_body()) == request_hash({**chat_body(), "model": "other", "temperature": 1})


def test_logprob_requests_get_a_yes_no_token_with_top_logprobs():
    with serve() as server:
        lm = lm_for(server)
        a = score_fit(lm, "Traveler: pasta", "[p1] Luigi")
        b = score_fit(lm, "Traveler: pasta", "[p2] Roma")
        assert a == score_fit(lm, "Traveler: pasta", "[p1] Luigi")
        for lp in (a, b):   # yes ∈ [-3.05, -0.05]; when "no" is likelier the min over {yes, no} is still yes
            assert -3.05 <= lp <= -0.05


def test_every_fault_class_is_retried_counted_and_gives_the_fault_free_answer():
    msgs = [{"role": "user", "content": "hello"}]
    with serve() as clean:
        expected = lm_for(clean)(messages=msgs)
    with serve(FakeConfig(schedule=FAULTS, retry_after_s=0.0, timeout_sleep_s=1.0)) as server:
        with faults.counting_faults() as counted, recording_usage() as usage:
            got = lm_for(server, http_retries=len(FAULTS))(messages=msgs)
        assert got == expected and usage.calls == 1 and usage.prompt_tokens == 2   # "hello" = 5 chars
        assert server.stats()["requests"] == len(FAULTS) + 1 and server.stats()["ok"] == 1
    assert dict(counted) == {"429": 1, "429-retry-after": 1, "5xx": 2, "timeout": 1, "connection": 1, "garbage": 2}


def test_retries_are_bounded_then_the_error_propagates_and_exhaustion_is_counted():
    with serve(FakeConfig(rates={"503": 1.0})) as server:
        with faults.counting_faults() as counted, pytest.raises(Exception, match="503"):
            lm_for(server, http_retries=2)(messages=[{"role": "user", "content": "x"}])
        assert server.stats()["requests"] == 3
    assert dict(counted) == {"5xx": 3, "exhausted": 1}


def test_a_bad_request_is_not_retried():
    class Boom(Exception):
        status = 400

    calls = []
    with pytest.raises(Boom):
        faults.call_with_retries(lambda: calls.append(1) or (_ for _ in ()).throw(Boom("bad request")), 5, 0.0, 0.0)
    assert calls == [1]


def test_backoff_honours_retry_after_and_jitters_below_the_exponential_cap():
    class RateLimited(Exception):
        retry_after = 7.0

    assert faults.backoff_delay(RateLimited(), 0, 1.0, 30.0) == 7.0
    assert faults.backoff_delay(RateLimited(), 0, 1.0, 5.0) == 5.0          # capped
    delays = [faults.backoff_delay(ValueError(), 3, 1.0, 30.0) for _ in range(200)]
    assert all(0 <= d <= 8.0 for d in delays) and len(set(delays)) > 100    # uniform(0, 1·2^3)
    assert max(faults.backoff_delay(ValueError(), 10, 1.0, 30.0) for _ in range(50)) <= 30.0


def test_faults_and_latency_depend_on_the_request_not_on_arrival_order():
    cfg = FakeConfig(seed=3, latency_median_s=1.5, rates={"429": 0.2, "500": 0.1})
    hashes = [f"h{i}" for i in range(2000)]
    a, b = FakeLMServer(cfg), FakeLMServer(cfg)
    try:
        forward = {h: a.plan(h) for h in hashes}
        backward = {h: b.plan(h) for h in reversed(hashes)}
    finally:
        a.server_close(), b.server_close()
    assert forward == backward
    latencies = [lat for _, lat in forward.values()]
    assert abs(statistics.median(latencies) / 1.5 - 1) < 0.05               # lognormal median
    share = {f: sum(v[0] == f for v in forward.values()) / len(hashes) for f in ("429", "500", "ok")}
    assert abs(share["429"] - 0.2) < 0.03 and abs(share["500"] - 0.1) < 0.03 and abs(share["ok"] - 0.7) < 0.03


def test_bad_fault_config_is_refused():
    with pytest.raises(ValueError, match="unknown fault"):
        FakeConfig(rates={"418": 0.5})
    with pytest.raises(ValueError, match="sum to <= 1"):
        FakeConfig(rates={"429": 0.7, "500": 0.6})


def test_module_entry_point_serves_on_localhost():
    proc = subprocess.Popen([sys.executable, "-m", "trace_crs.lm.fake_server", "--port", "0"],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        base = proc.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:") and base.endswith("/v1")
        with urllib.request.urlopen(f"{base}/models", timeout=5) as resp:
            assert json.load(resp)["data"][0]["id"] == "fake"
        with urllib.request.urlopen(f"{base}/stats", timeout=5) as resp:
            assert json.load(resp)["requests"] == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert json.loads(proc.stdout.read().strip().splitlines()[-1])["requests"] == 0    # /models is not counted
