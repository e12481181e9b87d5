"""`trace-crs lm records stats|verify` (trace_crs.lm.records_stats, trace_crs.lm.records_verify) against the fake server: the
counts, the seeded sample, the share identical to the record, the reasons, the exit codes."""
from __future__ import annotations

import gzip
import json

import dspy
import pytest

from trace_crs.cli import main
from trace_crs.lm import records as rec
from trace_crs.lm.backend import build_lm
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.records import use_records
from trace_crs.lm.records_key import STEP_ENV
from trace_crs.lm.records_verify import history_free, likely_reason, sample_keys, split_build

QWEN = "openai/qwen2.5-coder-0.5b-instruct-q4_k_m-sha256-ab"
PORTABLE_CPU = "SSE3,SSSE3,AVX,AVX2,F16C,FMA,BMI2"


@pytest.fixture(autouse=True)
def reset(monkeypatch):
    monkeypatch.delenv(rec.ENV, raising=False)
    yield
    rec.close_all()
    rec._STORES.clear()


@pytest.mark.parametrize("recorded, live, rec_cpu, live_cpu, reason", [
    (QWEN + "+avx512f-avx512vnni", QWEN, PORTABLE_CPU, PORTABLE_CPU,
     "another llama.cpp build tag (recorded '+avx512f-avx512vnni', here 'portable')"),
    (QWEN, QWEN + "+avx512f", PORTABLE_CPU, PORTABLE_CPU, "another llama.cpp build tag (recorded 'portable', here '+avx512f')"),
    (QWEN, QWEN, PORTABLE_CPU + ",AVX512F", PORTABLE_CPU,
     "other CPU features (recorded only ['AVX512F'], here only [])"),
    (QWEN, QWEN, PORTABLE_CPU, PORTABLE_CPU,
     "same model id, build and CPU features: decoding not deterministic here (threads, batching)"),
    ("openai/gpt-5.4-mini", "openai/gpt-5.4-mini", None, None, "same model id: the provider's decoding is not deterministic"),
    ("openai/a", "openai/b", None, None, "another model id (recorded openai/a, here openai/b)"),
])
def test_the_likely_reason_of_a_difference(recorded, live, rec_cpu, live_cpu, reason):
    assert likely_reason(recorded, live, rec_cpu, live_cpu) == reason


def test_a_record_from_a_history_dependent_worker_is_named_as_such():
    old = {"body": {"choices": [], "timings": {"prompt_n": 3}}}
    new = {"body": {"choices": [], "timings": {"prompt_n": 16, "kv_reuse_block": 16}}}
    assert not history_free(old) and history_free(new) and not history_free({"body": {}})
    # blocks, but a kept prefix followed by fewer than one block read (the rule before 01054f7)
    short = {"body": {"choices": [], "timings": {"prompt_n": 5, "kv_reuse_block": 16, "prompt_restored_n": 816}}}
    assert not history_free(short, prompt_tokens=821) and not history_free(short)
    assert history_free(short, prompt_tokens=5)  # nothing kept: the whole prompt was read
    reason = likely_reason(QWEN, QWEN, PORTABLE_CPU, PORTABLE_CPU, history_free(old))
    assert "KV reuse depended on the request before it" in reason
    assert likely_reason(QWEN, QWEN, PORTABLE_CPU, PORTABLE_CPU, history_free(new)).endswith("(threads, batching)")
    # a build or CPU difference is named first: it is the likelier cause
    assert likely_reason(QWEN, QWEN + "+avx512f", PORTABLE_CPU, PORTABLE_CPU, False).startswith("another llama.cpp")


def test_split_build_and_the_seeded_sample():
    assert split_build(QWEN + "+avx512f") == (QWEN, "+avx512f") and split_build(QWEN) == (QWEN, "")
    keys = {f"k{i}": {} for i in range(10)}
    assert sample_keys(keys, 3, 42) == sample_keys(keys, 3, 42) and len(set(sample_keys(keys, 3, 42))) == 3
    assert sample_keys(keys, 50, 42) == sorted(keys) and sample_keys({}, 5, 42) == []


def _record(tmp_path, url: str, prompts: list[str]) -> None:
    cfg = resolve_lm_config({"model": "openai/fake", "api_base": url, "cache_dir": str(tmp_path / "cache")})
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with use_records(tmp_path / "records"):
        lm = build_lm(cfg)
        for p in prompts:
            lm(messages=[{"role": "user", "content": p}])
    rec.close_all()


def test_verify_reports_the_share_identical_and_why_the_others_differ(fake_openai, tmp_path, capsys):
    first = fake_openai(lambda messages: "answer to " + messages[-1]["content"])
    prompts = ["same 1", "same 2", "drift 1", "drift 2"]
    _record(tmp_path, first.url, prompts)
    # the "live" backend: the same answers, except to the drift prompts
    live = fake_openai(lambda m: ("other " if "drift" in m[-1]["content"] else "") + "answer to " + m[-1]["content"])
    argv = ["lm", "records", "verify", "--dir", str(tmp_path / "records"), "--sample", "50", "--seed", "42",
            "--set", "model=openai/fake", "--set", f"api_base={live.url}", "--set", f"cache_dir={tmp_path / 'c2'}"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["sampled"], report["identical"], report["share_identical"]) == (4, 2, 0.5)
    assert report["reasons"] == {"same model id: the provider's decoding is not deterministic": 2}
    assert sorted(d["recorded"] for d in report["differing"]) == ["answer to drift 1", "answer to drift 2"]
    assert sorted(d["recomputed"] for d in report["differing"]) == ["other answer to drift 1", "other answer to drift 2"]
    assert len(live.calls) == 4                                   # every sampled record sent again
    assert report["same_text"] == 2 and not any(d["same_text"] for d in report["differing"])
    assert report["max_logprob_diff"] is None                     # the fake gives no log-probabilities
    out = tmp_path / "default.verify.json"
    assert main([*argv, "--out", str(out)]) == 0 and json.loads(out.read_text())["identical"] == 2
    inside = tmp_path / "records" / "VERIFY.json"                 # the guard: no output inside an input
    assert main([*argv, "--out", str(inside)]) == 2 and not inside.exists()
    capsys.readouterr()
    assert main([*argv, "--strict"]) == 4                         # a difference fails --strict
    capsys.readouterr()
    assert main([*argv[:6], "2", *argv[7:]]) == 0                 # a sample of 2
    assert json.loads(capsys.readouterr().out)["sampled"] == 2
    other = [a.replace("model=openai/fake", "model=openai/other") for a in argv]
    assert main(other) == 2 and "no LM records of openai/other" in capsys.readouterr().err


def test_stats_counts_records_per_model_and_step(fake_openai, tmp_path, capsys):
    server = fake_openai(lambda messages: "ok")
    _record(tmp_path, server.url, ["[zero-shot v1] a", "[zero-shot v1] b", "[core-v2] c"])
    assert main(["lm", "records", "stats", "--dir", str(tmp_path / "records")]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["per_model"] == {"openai/fake": {"core-v2": 1, "zero-shot v1": 2}}
    assert (stats["records"], stats["distinct"], stats["duplicates"], stats["shards"]) == (3, 3, 0, 1)
    assert stats["unclosed_shards"] == {} and stats["unmeasured"] == 0   # closed when the writer ended
    manifest = json.loads((tmp_path / "records" / "MANIFEST.json").read_text())
    assert manifest["counts"] == {"core-v2": {"openai/fake": 1}, "zero-shot v1": {"openai/fake": 2}}
    (tmp_path / "records" / "MANIFEST.json").unlink()
    assert main(["lm", "records", "manifest", "--dir", str(tmp_path / "records")]) == 0   # rebuilt from the shards
    rebuilt = json.loads((tmp_path / "records" / "MANIFEST.json").read_text())
    assert rebuilt["counts"] == manifest["counts"] and rebuilt["records"] == 3
    assert rebuilt["shards"].keys() == manifest["shards"].keys()


def test_seal_rewrites_cut_shards_and_the_manifest(fake_openai, tmp_path, capsys):
    server = fake_openai(lambda messages: "ok")
    _record(tmp_path, server.url, ["[zero-shot v1] a", "[zero-shot v1] b"])
    directory = tmp_path / "records"
    (shard,) = directory.glob("*.jsonl.gz")
    stamp, _pid, rest = shard.name.split("-", 2)
    cut = shard.with_name(f"{stamp}-999999999-{rest}")                 # a writer that is gone
    cut.write_bytes(shard.read_bytes()[:-8])                           # its trailer lost: "cut"
    shard.unlink()
    assert main(["lm", "records", "seal", "--dir", str(directory)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sealed"] == [cut.name] and out["records"] == 2
    assert len(gzip.decompress(cut.read_bytes()).splitlines()) == 2
    assert main(["lm", "records", "seal", "--dir", str(directory)]) == 0          # nothing left to seal
    assert json.loads(capsys.readouterr().out)["sealed"] == []


def test_stats_exit_codes(tmp_path, capsys):
    assert main(["lm", "records", "stats", "--dir", str(tmp_path / "none")]) == 2
    assert "no such records directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["lm", "records", "stats", "--dir", str(tmp_path / "empty")]) == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "20260101T000000.000000Z-1-0001-aaaaaa.jsonl.gz").write_bytes(gzip.compress(b"not json\n"))
    assert main(["lm", "records", "stats", "--dir", str(bad)]) == 3
    assert "0001-aaaaaa.jsonl.gz:1: not JSON" in capsys.readouterr().err


def test_closeness_of_two_replies_by_hand():
    from trace_crs.lm.records_verify import closeness

    def reply(text, lps):
        content = [{"token": tok, "logprob": lp, "top_logprobs": [{"token": t, "logprob": v} for t, v in tops]}
                   for tok, lp, tops in lps]
        return [{"text": text, "finish_reason": "length", "logprobs": {"content": content}}]

    a = reply("4", [("4", -0.10, [("4", -0.10), ("3", -2.50), ("2", -4.00)])])
    b = reply("4", [("4", -0.11, [("4", -0.11), ("3", -2.47), ("1", -5.00)])])  # "2"/"1" listed once only
    same, moved = closeness(a, b)
    assert same and moved == 0.03                                  # |-2.50 - -2.47|
    assert closeness(a, reply("3", [("3", -0.1, [])]))[0] is False
    assert closeness([{"text": "x", "finish_reason": "stop"}], [{"text": "x", "finish_reason": "stop"}]) == (True, None)


def test_the_context_verify_needs_comes_from_the_records(tmp_path):
    from trace_crs.lm.records import Records
    from trace_crs.lm.records_stats import context_needed

    store = Records(tmp_path)
    store.append({"key": "a", "model": "m", "step": "s", "response": {}, "request": {"max_tokens": 1},
                  "usage": {"prompt_tokens": 4133, "completion_tokens": 1}})            # 4,134 -> 8,192
    store.append({"key": "b", "model": "m", "step": "s", "response": {}, "request": {"max_tokens": 600},
                  "usage": {"prompt_tokens": 900, "completion_tokens": 12}})
    store.close()
    assert context_needed(tmp_path) == 8192


def test_verify_samples_only_the_named_step(fake_openai, tmp_path, capsys, monkeypatch):
    first = fake_openai(lambda messages: "answer to " + messages[-1]["content"])
    monkeypatch.setenv(STEP_ENV, "run/closed_llm")
    _record(tmp_path, first.url, ["a", "b"])
    monkeypatch.setenv(STEP_ENV, "judge-validity")
    _record(tmp_path, first.url, ["c", "d", "e"])
    monkeypatch.delenv(STEP_ENV)
    live = fake_openai(lambda m: "answer to " + m[-1]["content"])
    argv = ["lm", "records", "verify", "--dir", str(tmp_path / "records"), "--set", "model=openai/fake",
            "--set", f"api_base={live.url}", "--set", f"cache_dir={tmp_path / 'c2'}"]
    assert main([*argv, "--step", "run/"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["sampled"], report["identical"], report["step"]) == (2, 2, "run/")
    assert report["history_free"] == {"sampled": 0, "identical": 0}   # an API's replies carry no worker mark
    assert sorted(m[-1]["content"] for m in live.calls) == ["a", "b"]
    assert main([*argv, "--step", "score/"]) == 2
    assert "no LM records of a step starting 'score/'" in capsys.readouterr().err
