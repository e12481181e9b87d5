"""The local backend's thread choice and server pool (lm.config.default_threads / server_plan,
lm.server.ServerPool / shared_pool, TraceLM routing); no model is started."""
from __future__ import annotations

import os
import threading
from types import SimpleNamespace

import dspy
import pytest

from trace_crs.lm import config as lm_config
from trace_crs.lm import server as lm_server
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import default_threads, resolve_lm_config, server_plan
from trace_crs.lm.fake_server import serve
from trace_crs.lm.server import LlamaServer, ServerPool, shared_pool
from trace_crs.runner.llm_pool import auto_concurrency

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def machine(monkeypatch, cores: int, load: float) -> None:
    monkeypatch.delenv("TRACE_LM_THREADS", raising=False)
    monkeypatch.setattr(lm_config, "usable_cores", lambda: cores)
    monkeypatch.setattr(lm_config, "load_average", lambda: load)


@pytest.mark.parametrize("cores, load, expected", [
    (2, 0.0, 2),     # a newcomer on an idle 2-core machine gets both cores
    (2, 0.4, 2),     # 1.6 free rounds to 2
    (2, 0.6, 1),     # 1.4 free rounds to 1
    (2, 10.4, 1),    # overloaded: never below 1
    (8, 2.5, 6),     # 5.5 rounds half-to-even to 6
    (4, -1.0, 4),    # never above the cores
])
def test_threads_are_the_cores_not_busy(monkeypatch, cores, load, expected):
    machine(monkeypatch, cores, load)
    assert default_threads() == expected


def test_trace_lm_threads_wins_and_is_checked(monkeypatch):
    machine(monkeypatch, 2, 0.0)
    monkeypatch.setenv("TRACE_LM_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("TRACE_LM_THREADS", "two")
    with pytest.raises(ValueError, match="TRACE_LM_THREADS"):
        default_threads()


def test_usable_cores_is_the_affinity():
    assert lm_config.usable_cores() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("n_threads, servers, expected", [
    (2, 0, (2, 1)),     # auto: one 1-thread server per thread
    (2, 1, (1, 2)),     # one server with both threads (the old single-server path)
    (4, 2, (2, 2)),
    (1, 3, (3, 1)),     # every server gets at least one thread
])
def test_server_plan(n_threads, servers, expected):
    assert server_plan(n_threads, servers) == expected


def test_auto_plan_and_auto_concurrency_follow_the_free_cores(monkeypatch):
    machine(monkeypatch, 2, 0.0)
    lm = {"model": "local", "n_threads": 0, "servers": 0}
    assert server_plan() == (2, 1) and auto_concurrency(None, lm) == 2
    machine(monkeypatch, 2, 3.0)
    assert server_plan() == (1, 1) and auto_concurrency(None, lm) == 1
    assert auto_concurrency(None, {**lm, "servers": 3}) == 3


def test_pool_binds_each_thread_to_one_server_round_robin():
    pool = ServerPool([SimpleNamespace(api_base=f"http://s{i}") for i in range(2)])
    got: dict[int, list[str]] = {}
    ready = threading.Barrier(3)

    def worker(k: int) -> None:
        ready.wait()
        got[k] = [pool.api_base() for _ in range(3)]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(set(v)) == 1 for v in got.values())          # sticky per thread
    firsts = sorted(v[0] for v in got.values())
    assert firsts == ["http://s0", "http://s0", "http://s1"]     # 3 threads dealt over 2 servers
    with pytest.raises(ValueError):
        ServerPool([])


def test_shared_pool_starts_the_plan_once_and_stops_with_the_last_user(monkeypatch, tmp_path):
    events: list[str] = []

    def launch(self):
        self.port = 1000 + len(events)
        events.append(f"start {self.n_threads}")
        return self

    monkeypatch.setattr(LlamaServer, "launch", launch)
    monkeypatch.setattr(LlamaServer, "wait_ready", lambda self: self)
    monkeypatch.setattr(LlamaServer, "stop", lambda self: events.append("stop"))
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"")
    with shared_pool(weights, "al", 512, (2, 1), key=(0, 0)) as outer:
        # an auto plan re-resolved under another load joins the running pool
        with shared_pool(weights, "al", 512, (1, 2), key=(0, 0)) as inner:
            assert inner is outer and len(outer) == 2
        assert events == ["start 1", "start 1"]
    assert events == ["start 1", "start 1", "stop", "stop"]
    assert not lm_server._SHARED


def test_a_failed_start_stops_the_servers_already_started(monkeypatch):
    stopped: list[int] = []

    def wait_ready(self):
        if self.n_ctx == 1:
            raise RuntimeError("boom")
        return self

    monkeypatch.setattr(LlamaServer, "launch", lambda self: self)
    monkeypatch.setattr(LlamaServer, "wait_ready", wait_ready)
    monkeypatch.setattr(LlamaServer, "stop", lambda self: stopped.append(self.n_ctx))
    ok, bad = LlamaServer(__file__, "a", n_ctx=2), LlamaServer(__file__, "a", n_ctx=1)
    with pytest.raises(RuntimeError, match="boom"):
        ServerPool([ok, bad]).start()
    assert sorted(stopped) == [1, 2]


def test_lm_sends_each_threads_calls_to_its_own_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-not-a-key")
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with serve() as a, serve() as b:
        pool = ServerPool([a, b])
        lm = build_lm(resolve_lm_config({"model": "openai/gpt-4o-mini", "timeout_s": 5, "backoff_s": 0.0}),
                      endpoints=pool)
        ready = threading.Barrier(2)

        def worker(k: int, n: int) -> None:
            ready.wait()
            for i in range(n):
                lm(messages=[{"role": "user", "content": f"thread {k} call {i}"}])

        threads = [threading.Thread(target=worker, args=(k, n)) for k, n in ((0, 2), (1, 3))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted([a.stats()["requests"], b.stats()["requests"]]) == [2, 3]
