"""Faults of a real API in a run (fake server): retried and counted, exhausted → counted fallback;
the cost guard stops and resumes; kill -9 and re-run loses and duplicates nothing; --estimate."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
from runhelpers import llm_config

from trace_crs.lm.fake_server import FakeConfig, serve
from trace_crs.runner.estimate import estimate
from trace_crs.runner.run import evaluate

THREE = "llm_zero_shot,dst,rag_citation"
# server fault name -> the class the client counts it as (lm.faults)
CLASS_OF = {"429": "429", "429-retry-after": "429-retry-after", "500": "5xx", "503": "5xx", "timeout": "timeout",
            "reset": "connection", "truncated": "garbage", "non-json": "garbage"}


def records(out):
    return pq.read_table(out / "records.parquet").drop(["latency_s"])


def test_every_fault_class_is_retried_counted_in_the_manifest_and_changes_no_record(corpus, llm_env, tmp_path):
    with serve() as clean:
        evaluate(llm_config(corpus, clean.api_base, tmp_path / "lm0", baselines=THREE), tmp_path / "ref", workers=1,
                 progress=False)
    rates = {"429": .04, "429-retry-after": .04, "500": .03, "503": .03, "timeout": .02, "reset": .03,
             "truncated": .03, "non-json": .03}
    faulty = FakeConfig(seed=1, rates=rates, retry_after_s=0.0, timeout_sleep_s=1.5)
    with serve(faulty) as server:
        cfg = llm_config(corpus, server.api_base, tmp_path / "lm1", baselines=THREE, concurrency=8,
                         lm={"timeout_s": 1.0, "http_retries": 10})
        manifest = evaluate(cfg, tmp_path / "run", workers=1, progress=False)
        served = server.stats()
    assert records(tmp_path / "run").equals(records(tmp_path / "ref"))
    expected: dict[str, int] = {}
    for name, cls in CLASS_OF.items():
        expected[cls] = expected.get(cls, 0) + served[name]
    counted: dict[str, int] = {}
    for per_baseline in manifest["faults"].values():
        for cls, n in per_baseline.items():
            counted[cls] = counted.get(cls, 0) + n
    # a slow answer on a loaded machine may also time out on the client: at least the served timeouts
    assert counted.pop("timeout") >= expected.pop("timeout") > 0
    assert counted == expected and all(served[f] > 0 for f in CLASS_OF)
    assert all(c["fallbacks"] == 0 for c in manifest["counts"].values())


def test_exhausted_retries_become_the_counted_fallback(corpus, llm_env, tmp_path):
    with serve(FakeConfig(rates={"503": 1.0})) as server:
        cfg = llm_config(corpus, server.api_base, tmp_path / "lm", baselines="llm_zero_shot", concurrency=4,
                         lm={"http_retries": 1, "retries": 0})
        manifest = evaluate(cfg, tmp_path / "run", workers=1, progress=False)
        sent = server.stats()["requests"]
    rows = pq.read_table(tmp_path / "run" / "records.parquet").to_pylist()
    assert len(rows) == 24 and all(r["fallback"] and "503" in r["error"] for r in rows)
    assert manifest["counts"]["llm_zero_shot"] == {"records": 24, "fallbacks": 24}
    assert sent == 48 and manifest["faults"]["llm_zero_shot"] == {"5xx": 48, "exhausted": 24}   # 2 tries a turn


def chunk_costs(out, name):
    return [sum(pq.read_table(p).column("cost_usd").to_pylist()) for p in sorted((out / "records" / name).glob("*.parquet"))]


def test_cost_guard_stops_before_the_budget_and_a_larger_budget_resumes(corpus, llm_env, tmp_path):
    with serve() as server:
        ref = llm_config(corpus, server.api_base, tmp_path / "lm0", baselines="llm_zero_shot", chunk_size=1)
        evaluate(ref, tmp_path / "ref", workers=1, progress=False)
        per_dialogue = chunk_costs(tmp_path / "ref", "llm_zero_shot")
        budget = sum(per_dialogue[:5]) + per_dialogue[5] / 2        # room for 5 dialogues and a half
        cfg = llm_config(corpus, server.api_base, tmp_path / "lm1", baselines="llm_zero_shot", chunk_size=1,
                         concurrency=8, max_cost_usd=budget)
        report = evaluate(cfg, tmp_path / "run", workers=1, progress=False)
        kept = chunk_costs(tmp_path / "run", "llm_zero_shot")
        assert report["complete"] is False and report["stopped"] == "max_cost_usd"
        assert 1 <= len(kept) <= 5 and sum(kept) <= budget and report["spent_usd"] <= budget
        assert report["pending_chunks"] == 12 - len(kept) and not (tmp_path / "run" / "records.parquet").exists()
        again = evaluate(cfg, tmp_path / "run", workers=1, progress=False)                # same budget: nothing more fits
        assert again["complete"] is False and len(chunk_costs(tmp_path / "run", "llm_zero_shot")) == len(kept)
        bigger = llm_config(corpus, server.api_base, tmp_path / "lm1", baselines="llm_zero_shot", chunk_size=1,
                            concurrency=8, max_cost_usd=1.0)
        assert evaluate(bigger, tmp_path / "run", workers=1, progress=False)["complete"]
    assert records(tmp_path / "run").equals(records(tmp_path / "ref"))


def test_kill_9_mid_run_and_rerun_loses_and_duplicates_nothing(corpus, llm_env, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TQDM_DISABLE": "1"}
    with serve(FakeConfig(latency_median_s=0.02)) as server:
        ref = llm_config(corpus, server.api_base, tmp_path / "lm0", baselines="llm_zero_shot,mrs", chunk_size=2)
        evaluate(ref, tmp_path / "ref", workers=1, progress=False)
        cmd = [sys.executable, "-m", "trace_crs", "evaluate", "--kb", corpus[0], "--dialogues", corpus[1],
               "--baselines", "llm_zero_shot,mrs", "--chunk-size", "2", "--concurrency", "4", "--quiet",
               "--set", "lm.model=openai/gpt-4o-mini", "--set", f"lm.api_base={server.api_base}",
               "--set", "lm.mode=generative", "--set", f"lm.cache_dir={tmp_path / 'lm1'}", "--set", "lm.backoff_s=0",
               "--set", "lm.timeout_s=5.0", "--out", str(tmp_path / "run")]
        start = server.stats()["requests"]             # kill -9 once the model answered 20 of 48 requests
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while server.stats()["requests"] - start < 20 and proc.poll() is None:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done = list((tmp_path / "run" / "records").glob("*/*.parquet"))
        assert not (tmp_path / "run" / "records.parquet").exists() and 0 < len(done) < 12
        subprocess.run(cmd, env=env, check=True, capture_output=True)
    assert records(tmp_path / "run").equals(records(tmp_path / "ref"))
    manifest = json.loads((tmp_path / "run" / "MANIFEST.json").read_text())
    assert manifest["n_records"] == 12 * 2 * 2


def test_estimate_projects_the_measured_sample(corpus, llm_env, tmp_path):
    with serve() as server:
        cfg = llm_config(corpus, server.api_base, tmp_path / "lm", baselines="llm_zero_shot,dst", concurrency=16)
        report = estimate(cfg, sample=3)
        sent = server.stats()["requests"]
    assert report["dialogues"] == 12 and report["sample_dialogues"] == 3 and report["concurrency"] == 16
    sample, projected = report["sample"], report["projected"]
    assert sample["llm_zero_shot"]["turns"] == 6 == sample["llm_zero_shot"]["calls"]   # 3 dialogues × 2 turns, 1 call
    assert sample["dst"]["requests"] < sample["dst"]["calls"]       # DST re-extracts earlier turns: cache hits
    assert sent == sum(s["requests"] for s in sample.values())
    for name in sample:
        for key in ("calls", "requests", "cost_usd", "prompt_tokens"):
            assert abs(projected[name][key] - sample[name][key] * 4) < 1e-5
    total = report["total"]
    assert abs(total["wall_s_at_concurrency"] - total["model_s"] / 16) < 0.1 and total["cost_usd"] > 0
    assert not (tmp_path / "run").exists()
