"""Benchmark of the local LM backend (not a timed test).

1. Throughput: the same chat prompts, greedy, ``--max-tokens`` each, through (a) raw
   ``llama_cpp.Llama`` in this process and (b) the project's llama.cpp server over HTTP
   (no DSPy cache), both with ``n_threads`` = ``--threads`` (the worker loads without ``logits_all``).
   Reports median end-to-end completion tokens/s per prompt and the server/raw ratio
   (target ≥ 0.9).  A warm-up prompt runs first on each side.
2. Optionally (``--kb`` and ``--dialogues``): wall time of one LLM Zero-Shot turn
   (logprob ranking over the closed pool + the reply) through the full DSPy stack, cold
   cache, and of its replay from the disk cache.
Writes ``--out`` (JSON) and prints it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from trace_crs.lm.server import LlamaServer
from trace_crs.lm.weights import get_weights, verified_path

PROMPTS = [
    "A traveler in Tampa wants a quiet Italian restaurant for an anniversary dinner, moderately priced, "
    "with outdoor seating. In three sentences, explain what to look for in reviews.",
    "Summarise in three sentences what makes a boutique hotel in New Orleans good for a family with two "
    "children who want a pool and free parking.",
    "A visitor to Nashville asks for a lively music venue within walking distance of downtown hotels. "
    "Write a short, friendly recommendation of what kind of place to choose and why.",
]


def _messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are a concise tourism assistant."}, {"role": "user", "content": prompt}]


def raw_speeds(model: Path, threads: int, max_tokens: int, n_ctx: int) -> list[float]:
    from llama_cpp import Llama

    llm = Llama(
        str(model), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, logits_all=False, verbose=False, seed=42
    )
    llm.create_chat_completion(_messages("Hello"), max_tokens=4, temperature=0.0)
    speeds = []
    for prompt in PROMPTS:
        llm.reset()
        start = time.perf_counter()
        out = llm.create_chat_completion(_messages(prompt), max_tokens=max_tokens, temperature=0.0)
        speeds.append(out["usage"]["completion_tokens"] / (time.perf_counter() - start))
    del llm
    return speeds


def _post(api_base: str, alias: str, prompt: str, max_tokens: int) -> dict:
    body = json.dumps(
        {"model": alias, "messages": _messages(prompt), "max_tokens": max_tokens, "temperature": 0.0}
    ).encode()
    req = urllib.request.Request(f"{api_base}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as resp:
        return json.load(resp)


def server_speeds(model: Path, alias: str, threads: int, max_tokens: int, n_ctx: int) -> list[float]:
    speeds = []
    with LlamaServer(model, alias, n_ctx=n_ctx, n_threads=threads) as srv:
        _post(srv.api_base, alias, "Hello", 4)
        for prompt in PROMPTS:
            start = time.perf_counter()
            out = _post(srv.api_base, alias, prompt, max_tokens)
            speeds.append(out["usage"]["completion_tokens"] / (time.perf_counter() - start))
    return speeds


def one_turn(weights: str, kb_dir: str, dialogues: str, threads: int) -> dict:
    from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb.store import load_kb
    from trace_crs.lm.backend import build_lm
    from trace_crs.lm.config import resolve_lm_config
    from trace_crs.runner.tasks import turn_contexts

    kb = load_kb(kb_dir)
    ctx = next(c for d in load_dialogues(dialogues) for c in turn_contexts(d, kb, "closed", 42))
    with tempfile.TemporaryDirectory() as cache:
        cfg = resolve_lm_config({"weights": weights, "n_threads": threads, "cache_dir": cache, "retries": 0})
        base = LLMZeroShotBaseline(cfg)
        start = time.perf_counter()
        base.prepare(kb)
        ready = time.perf_counter()
        try:
            out = base.predict(ctx)
        finally:
            base.close()
        replay = LLMZeroShotBaseline(cfg, lm=build_lm(cfg, api_base="http://127.0.0.1:9/v1"))
        t0 = time.perf_counter()
        again = replay.predict(ctx)
        replay_s = time.perf_counter() - t0
    return {
        "weights": weights,
        "candidates": len(ctx.candidates),
        "server_start_s": round(ready - start, 2),
        "turn_s": round(out.usage.latency_s, 2),
        "prompt_tokens": out.usage.prompt_tokens,
        "completion_tokens": out.usage.completion_tokens,
        "fallback": out.usage.fallback,
        "error": out.usage.error,
        "replay_s": round(replay_s, 3),
        "replay_identical": again.ranked_poi_ids == out.ranked_poi_ids and again.text == out.text,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default="qwen2.5-coder-1.5b-instruct-q4_k_m")
    ap.add_argument("--models-dir", default="models")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--n-ctx", type=int, default=2048)
    ap.add_argument("--kb", help="KB directory for the one-turn timing (optional)")
    ap.add_argument("--dialogues", help="dialogues JSONL for the one-turn timing (optional)")
    ap.add_argument("--out", default="results/bench/lm.json")
    args = ap.parse_args()

    w = get_weights(args.weights)
    model = verified_path(args.weights, args.models_dir)
    raw = raw_speeds(model, args.threads, args.max_tokens, args.n_ctx)
    srv = server_speeds(model, w.alias, args.threads, args.max_tokens, args.n_ctx)
    result = {
        "weights": args.weights,
        "sha256": w.sha256,
        "threads": args.threads,
        "max_tokens": args.max_tokens,
        "raw_tok_s": [round(s, 2) for s in raw],
        "server_tok_s": [round(s, 2) for s in srv],
        "raw_median_tok_s": round(statistics.median(raw), 2),
        "server_median_tok_s": round(statistics.median(srv), 2),
        "server_over_raw": round(statistics.median(srv) / statistics.median(raw), 3),
    }
    if args.kb and args.dialogues:
        result["one_turn"] = one_turn(args.weights, args.kb, args.dialogues, args.threads)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
