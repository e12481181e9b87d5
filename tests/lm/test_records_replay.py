"""LM records, replay side (TraceLM.forward, open_lm; trace_crs.lm.records): a workload run against
the fake server with records on, then again with no server at all, gives the same outputs and
the same usage; the local servers start only for a call the records do not answer."""
from __future__ import annotations

import json
import socket
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import dspy
import pytest

from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.lm import backend
from trace_crs.lm import records as rec
from trace_crs.lm.backend import build_lm, configure_disk_cache, open_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.fake_server import serve
from trace_crs.lm.records import iter_records, use_records
from trace_crs.lm.records_key import record_key
from trace_crs.lm.records_pool import LazyPool
from trace_crs.lm.usage import recording_usage

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
from test_llm_helpers import make_ctx


@pytest.fixture(autouse=True)
def reset(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.delenv(rec.ENV, raising=False)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    with dspy.context(lm=None):
        yield
    rec.close_all()
    rec._STORES.clear()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)


def new_process(cache_dir: Path) -> None:
    """What a new process starts with: no records read yet, DSPy's cache on an empty directory."""
    rec.close_all()
    rec._STORES.clear()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    configure_disk_cache(cache_dir)


def dead_url() -> str:
    with socket.socket() as s:                      # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def workload(url: str, cache_dir: Path) -> tuple[list, dict]:
    """Two LLM Zero-Shot turns (log-prob ranking with top_logprobs + a generated reply) and one
    bare completion; the outputs as JSON text and the usage of the block."""
    outs = []
    with recording_usage() as tally:
        for mode in ("logprob", "generative"):
            cfg = resolve_lm_config({"model": "openai/fake", "api_base": url, "mode": mode, "retries": 0,
                                     "http_retries": 0, "cache_dir": str(cache_dir)})
            out = LLMZeroShotBaseline(cfg, lm=build_lm(cfg)).predict(make_ctx())
            assert not out.usage.fallback, out.usage.error
            outs.append([out.ranked_poi_ids, out.text, out.citations, out.usage.prompt_tokens,
                         out.usage.completion_tokens, out.usage.cost_usd])
        cfg = resolve_lm_config({"model": "openai/fake", "api_base": url, "cache_dir": str(cache_dir)})
        outs.append(build_lm(cfg)(messages=[{"role": "user", "content": "hello"}], logprobs=True, top_logprobs=2))
    usage = {k: getattr(tally, k) for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "truncated")}
    return json.loads(json.dumps(outs, default=repr)), {**usage, "model_s": tally.model_s,
                                                       "replayed_s": tally.replayed_s}


def test_replay_without_a_server_gives_the_same_outputs_and_usage(tmp_path):
    records = tmp_path / "records"
    with use_records(records), serve() as server:
        new_process(tmp_path / "cache1")
        computed, first = workload(server.api_base, tmp_path / "cache1")
        sent = server.stats()["requests"]
    assert sent > 0 and first["cache_hits"] == 0 and first["replayed_s"] == 0
    written = list(iter_records(records))
    assert len(written) == first["calls"] and all(record_key(r["request"]) == r["key"] for r in written)
    assert {r["step"] for r in written} >= {"zero-shot v2"}

    with use_records(records):                      # no server anywhere, an empty DSPy cache
        new_process(tmp_path / "cache2")
        replayed, again = workload(dead_url(), tmp_path / "cache2")
    assert replayed == computed
    assert {k: again[k] for k in ("calls", "prompt_tokens", "completion_tokens", "truncated")} == \
        {k: first[k] for k in ("calls", "prompt_tokens", "completion_tokens", "truncated")}
    assert again["cache_hits"] == again["calls"] and again["replayed_s"] == pytest.approx(first["model_s"])
    assert len(list(iter_records(records))) == len(written)      # nothing appended


def test_a_call_not_recorded_is_computed_and_appended(tmp_path):
    records, msgs = tmp_path / "records", [{"role": "user", "content": "one"}]
    with use_records(records), serve() as server:
        cfg = resolve_lm_config({"model": "openai/fake", "api_base": server.api_base, "cache_dir": str(tmp_path)})
        build_lm(cfg)(messages=msgs)
        new_process(tmp_path / "c2")
        lm = build_lm(cfg)
        lm(messages=msgs)                                           # replayed
        lm(messages=[{"role": "user", "content": "two"}])           # computed, appended
        assert server.stats()["requests"] == 2
    assert [r["request"]["messages"][0]["content"] for r in iter_records(records)] == ["one", "two"]


def test_a_dspy_cache_hit_is_recorded_with_the_usage_measured_when_it_was_made(tmp_path):
    msgs = [{"role": "user", "content": "cached before records"}]
    with serve() as server:
        cfg = resolve_lm_config({"model": "openai/fake", "api_base": server.api_base, "cache_dir": str(tmp_path / "c")})
        configure_disk_cache(cfg.cache_dir)
        with recording_usage() as made:
            build_lm(cfg)(messages=msgs)                            # records off: DSPy cache + usage store
        with use_records(tmp_path / "records"):
            build_lm(cfg)(messages=msgs)                            # a DSPy cache hit, now recorded
        assert server.stats()["requests"] == 1
    (record,) = iter_records(tmp_path / "records")
    assert record["usage"]["latency_s"] == pytest.approx(made.model_s) and record["usage"]["prompt_tokens"] > 0
    assert record["measured"] is True


def test_a_dspy_cache_hit_made_outside_a_tally_is_recorded_unmeasured_not_sent_again(tmp_path):
    msgs = [{"role": "user", "content": "cached outside a tally"}]
    with serve() as server:
        cfg = resolve_lm_config({"model": "openai/fake", "api_base": server.api_base, "cache_dir": str(tmp_path / "c")})
        configure_disk_cache(cfg.cache_dir)
        first = build_lm(cfg)(messages=msgs)                        # records off, no tally: no usage stored
        with use_records(tmp_path / "records"):
            assert build_lm(cfg)(messages=msgs) == first            # a DSPy cache hit, recorded as it is
        assert server.stats()["requests"] == 1                      # not sent again to measure it
    (record,) = iter_records(tmp_path / "records")
    assert record["measured"] is False and record["usage"]["latency_s"] == 0.0
    assert record["usage"]["prompt_tokens"] == record["usage"]["completion_tokens"] == 0


class FakePool:
    """Stands for the llama.cpp servers: every thread is sent to the fake server."""

    def __init__(self, url: str) -> None:
        self.url, self.servers = url, [SimpleNamespace(api_base=url)]

    def api_base(self) -> str:
        return self.url

    def __len__(self) -> int:
        return 1


@pytest.fixture
def local(monkeypatch, tmp_path):
    """``open_lm`` on the local preset with the server pool replaced by the fake server; counts starts."""
    starts: list[str] = []
    state = SimpleNamespace(starts=starts, fail=None)
    with serve() as server:

        @contextmanager
        def fake_shared_pool(*args, **kwargs):
            starts.append("start")
            if state.fail:
                raise state.fail
            yield FakePool(server.api_base)

        monkeypatch.setattr(backend, "shared_pool", fake_shared_pool)
        monkeypatch.setattr(backend, "verified_path", lambda *a: tmp_path / "weights.gguf")
        state.cfg = resolve_lm_config({"weights": "smollm2-135m-instruct-q4_1", "cache_dir": str(tmp_path / "c")})
        state.server = server
        yield state


def test_no_local_server_starts_when_every_call_is_recorded(local, tmp_path):
    msgs = [{"role": "user", "content": "hello"}]
    with use_records(tmp_path / "records"):
        with open_lm(local.cfg) as lm:
            assert isinstance(lm.endpoints, LazyPool) and local.starts == []     # nothing started yet
            first = lm(messages=msgs)
            assert local.starts == ["start"]                                     # the first call not recorded
            lm(messages=msgs)
        new_process(tmp_path / "c2")
        with open_lm(local.cfg) as lm:
            assert lm(messages=msgs) == first
        assert local.starts == ["start"]                                         # all recorded: none started
    with open_lm(local.cfg) as lm:                                               # records off: started at once
        assert local.starts == ["start", "start"]


def test_a_local_server_that_cannot_start_fails_every_call_at_once_and_the_block(local, tmp_path):
    local.fail = FileNotFoundError("models/x.gguf: weights not assembled")
    with pytest.raises(FileNotFoundError, match="models/x.gguf"), use_records(tmp_path / "records"), \
            open_lm(local.cfg) as lm:
        for _ in range(2):                          # a caller that falls back on failed calls
            with pytest.raises(RuntimeError, match="could not start: models/x.gguf"):
                lm(messages=[{"role": "user", "content": "hello"}])
    assert local.starts == ["start"]                                             # tried once
    with pytest.raises(RuntimeError, match="block has ended"):
        lm(messages=[{"role": "user", "content": "after"}])


CALL = """
import json, sys
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
cfg = resolve_lm_config({"model": "openai/fake", "api_base": sys.argv[1], "cache_dir": sys.argv[2], "http_retries": 0})
print(json.dumps(build_lm(cfg)(messages=[{"role": "user", "content": "hello"}])))
"""


def test_the_environment_variable_reaches_a_subprocess(tmp_path):
    import os
    import subprocess

    env = {**os.environ, rec.ENV: str(tmp_path / "records"), "PYTHONPATH": str(Path(__file__).parents[2] / "src"),
           "OPENAI_API_KEY": "sk-fake-server", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}

    def run(url: str, cache: str) -> str:
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", CALL, url, str(tmp_path / cache)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout

    with serve() as server:
        computed = run(server.api_base, "c1")
    assert run(dead_url(), "c2") == computed and json.loads(computed)[0]
    manifest = json.loads((tmp_path / "records" / "MANIFEST.json").read_text())   # written at exit
    assert manifest["records"] == 1 and manifest["models"] == {"openai/fake": 1}
