"""Profile of the local judge's model time: prefill vs decode tokens per judge mode (not a
timed test; README "Measured here").

The judge's requests for one transcript are built exactly as DSPy's ChatAdapter builds them
and posted straight to one Trace llama.cpp worker (a fresh process per mode, so every mode
starts with an empty KV cache); the worker's per-request ``timings`` (llama.cpp's own counters)
split each call into prompt tokens actually evaluated after the reused KV prefix ("prefill")
and tokens decoded.  Modes:

* ``per-factor core-v1 layout``: the pre-``core-v2`` prompt (guideline before the conversation,
  rationale before the rating), rebuilt here from its field order and docstring, without the
  local decoding guards (no end-marker stop, no repetition stop) — today's path before the change;
* ``per-factor core-v2``: :class:`trace_crs.judge.core.RateFactor` with the local guards;
* ``one-call core-v2``: :class:`trace_crs.judge.core.RateAllFactors` with the local guards.

Token counts (prompt, prefill, decode, replies that hit ``max_tokens``) do not depend on the
machine's load; the seconds do (the 1-minute load average is recorded).

Per LLM baseline (``--baselines``, default every one of ``baselines.registry.LLM``; ``--baselines``
with no name skips them): ``trace-crs evaluate`` of that baseline alone on ``--subset`` seeded
dialogues of the closed pool, cold LM cache, the Trace worker (one process), with
``TRACE_WORKER_TIMINGS`` set so the worker appends each answered request's usage, llama.cpp
counters and finish reason to a file; the row sums them (same columns as the judge modes).

    python bench/bench_lm_profile.py --transcripts t.jsonl --out results/bench/lm_profile.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import dspy

from trace_crs.baselines.registry import LLM
from trace_crs.judge.core import RateAllFactors, RateFactor
from trace_crs.judge.factors import FACTORS, guideline
from trace_crs.judge.transcript import parse_transcript
from trace_crs.lm.backend import END_MARKER
from trace_crs.lm.config import LMConfig
from trace_crs.lm.llama_worker import TIMINGS_ENV
from trace_crs.lm.server import LlamaServer
from trace_crs.lm.weights import verified_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the same transcript as the judge bench
from bench_judge_core import first_transcript


class RateFactorV1(dspy.Signature):
    """You are a professional evaluator of conversational recommender systems for travellers. Rate ONLY the system's responses in the <interaction> part of the log (the <history> is context), on the one factor of the guideline: reason along its steps first, then give the integer rating. [core-v1]"""

    guideline: str = dspy.InputField(desc="definition, evaluation standard (points 0-4) and steps of the factor")
    conversation: str = dspy.InputField(desc="conversation log, recommendation list, ground truth, cited reviews")
    note: str = dspy.InputField(desc="empty, or why your previous answer could not be used")
    rationale: str = dspy.OutputField(desc="your reasoning along the evaluation steps")
    rating: int = dspy.OutputField(desc="the score, one integer from 0 to 4")


def requests(log: str) -> dict[str, tuple[list[list[dict]], bool]]:
    """Mode -> (the messages of each call, whether the local guards apply)."""
    fmt = dspy.ChatAdapter().format
    rubrics = "\n".join(
        guideline(n).replace("<evaluation_guideline ", f'<evaluation_guideline name="{n}" ') for n in FACTORS
    )
    return {
        "per-factor core-v1 layout": (
            [fmt(RateFactorV1, [], {"guideline": guideline(n), "conversation": log, "note": ""}) for n in FACTORS],
            False,
        ),
        "per-factor core-v2": (
            [fmt(RateFactor, [], {"conversation": log, "guideline": guideline(n), "note": ""}) for n in FACTORS],
            True,
        ),
        "one-call core-v2": ([fmt(RateAllFactors, [], {"conversation": log, "guidelines": rubrics, "note": ""})], True),
    }


def error_body(exc: urllib.error.HTTPError) -> str:
    """The server's error text, or the status reason when the body cannot be read (already consumed)."""
    try:
        return exc.read().decode(errors="replace") or str(exc.reason)
    except Exception:  # http.client.IncompleteRead on a consumed body
        return str(exc.reason)


def _post(base: str, body: dict) -> dict:
    req = urllib.request.Request(
        f"{base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=1800) as resp:
        return json.load(resp)


def profile(model: Path, calls: list[list[dict]], guarded: bool, max_tokens: int, threads: int, n_ctx: int) -> dict:
    """Sums over the calls of one mode on a fresh worker (:func:`sum_lines` over its replies;
    the wall time is the requests' own, worker start-up excluded)."""
    cfg = LMConfig()
    load = os.getloadavg()[0]
    lines, wall_s = [], 0.0
    with LlamaServer(model, "m", n_ctx, threads) as worker:
        for messages in calls:
            body = {"model": "m", "messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "seed": 42}
            if guarded:
                body.update(stop=[END_MARKER], trace_repeat_ngram=cfg.repeat_ngram)
            start = time.perf_counter()
            out = _post(worker.api_base, body)
            wall_s += time.perf_counter() - start
            lines.append(
                {"timings": out["timings"], "usage": out["usage"], "finish_reason": out["choices"][0]["finish_reason"]}
            )
    return sum_lines(lines, wall_s, load)


def sum_lines(lines: list[dict], wall_s: float, load: float) -> dict:
    """The profile columns summed over the worker's timing lines of one run."""
    tot = {
        "calls": len(lines),
        "prompt_tokens": 0,
        "prefill_tokens": 0,
        "decode_tokens": 0,
        "prefill_s": 0.0,
        "decode_s": 0.0,
        "hit_max_tokens": 0,
        "wall_s": round(wall_s, 2),
        "load_1min": round(load, 2),
    }
    for line in lines:
        t = line["timings"] or {}
        tot["prompt_tokens"] += (line["usage"] or {}).get("prompt_tokens", 0)
        tot["prefill_tokens"] += t.get("prompt_n", 0)
        tot["decode_tokens"] += t.get("predicted_n", 0)
        tot["prefill_s"] += t.get("prompt_ms", 0.0) / 1000
        tot["decode_s"] += t.get("predicted_ms", 0.0) / 1000
        # a 1-token log-prob ranking call ends at "length" by design: not a reply cut at max_tokens
        tot["hit_max_tokens"] += (
            line["finish_reason"] == "length" and (line["usage"] or {}).get("completion_tokens", 0) > 1
        )
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in tot.items()}


def profile_baseline(name: str, args: argparse.Namespace, tmp: Path) -> dict:
    """One baseline alone through ``trace-crs evaluate`` (module docstring)."""
    log, out = tmp / f"{name}.timings.jsonl", tmp / name
    cmd = [
        sys.executable,
        "-m",
        "trace_crs",
        "evaluate",
        "--kb",
        args.kb,
        "--dialogues",
        args.dialogues,
        "--baselines",
        name,
        "--pool",
        "closed",
        "--subset",
        str(args.subset),
        "--seed",
        "42",
        "--quiet",
        "--out",
        str(out),
    ]
    for s in (
        f"lm.weights={args.weights}",
        f"lm.models_dir={args.models}",
        f"lm.cache_dir={tmp / (name + '-lm')}",
        f"lm.n_threads={args.threads}",
        "lm.servers=1",
        "concurrency=1",
    ):
        cmd += ["--set", s]
    load, start = os.getloadavg()[0], time.perf_counter()
    done = subprocess.run(cmd, env={**os.environ, TIMINGS_ENV: str(log)}, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr[-300:]}"}
    lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return {**sum_lines(lines, time.perf_counter() - start, load), "dialogues": args.subset}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--transcripts", help="transcripts JSON lines; the first one is profiled (default: the smoke corpus's first)"
    )
    p.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    p.add_argument("--models", default="models")
    p.add_argument("--max-tokens", type=int, default=LMConfig().max_tokens)
    p.add_argument("--threads", type=int, default=1)
    # one-call core-v2 on a live default transcript needs more than lm.n_ctx's 4096 (HTTP 400 there)
    p.add_argument("--n-ctx", type=int, default=16384)
    p.add_argument("--modes", nargs="*", help="subset of the judge modes (default: all; --modes with no name: none)")
    p.add_argument("--baselines", nargs="*", default=list(LLM), help="LLM baselines to profile (default: all)")
    p.add_argument("--subset", type=int, default=1, help="dialogues per baseline")
    p.add_argument("--kb", default="data/kb/default")
    p.add_argument("--dialogues", default="data/dialogues/default/dialogues.jsonl")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_profile_") as tmp:
        first = json.loads(first_transcript(args.transcripts, Path(tmp)).read_text())
    log = parse_transcript(first).log()
    model = verified_path(args.weights, args.models)
    modes = {m: r for m, r in requests(log).items() if args.modes is None or m in args.modes}
    result = {
        "transcript": first.get("dialogue_id"),
        "weights": args.weights,
        "max_tokens": args.max_tokens,
        "threads": args.threads,
        "n_ctx": args.n_ctx,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "modes": {},
        "baselines": {},
        "subset": args.subset,
    }
    for mode, (calls, guarded) in modes.items():
        try:
            result["modes"][mode] = profile(model, calls, guarded, args.max_tokens, args.threads, args.n_ctx)
        except urllib.error.HTTPError as exc:  # e.g. one-call's prompt beyond n_ctx: recorded, not hidden
            result["modes"][mode] = {"error": f"HTTP {exc.code}: {error_body(exc)[:300]}"}
        print(mode, result["modes"][mode], flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_profile_bl_") as tmp:
        for name in args.baselines:
            result["baselines"][name] = profile_baseline(name, args, Path(tmp))
            print(name, result["baselines"][name], flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
