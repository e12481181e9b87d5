"""Portable vs native llama.cpp build (``trace_crs.lm.build``): prompt processing and decoding speed
of the default 0.5B model, side by side (not a timed test).

Each repetition runs one process per build, alternating (portable, native, portable, …): load the
GGUF with one thread, evaluate ``--prefill`` tokens of a fixed English text (the Trace paper seed,
as a prompt would be), then decode ``--decode`` tokens greedily.  Speeds are tokens per second of
*process CPU time*, not wall time: on a shared 2-core machine wall time measures the neighbours;
CPU time of a 1-thread process measures the work (SMT contention still adds noise, so medians over
``--reps`` pairs).  Also reported: whether the greedy continuation is the same text in both builds.

    python bench/bench_llama_build.py --native-site DIR --out results/bench/llama_build.json

``DIR`` holds a ``pip install --target`` of llama-cpp-python built with ``GGML_NATIVE=ON``
(``make bench-llama-build`` builds it there); the portable build is the venv's own.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from trace_crs.lm.weights import get_weights, verified_path

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = "qwen2.5-coder-0.5b-instruct-q4_k_m"

CHILD = r"""
import json, sys, time
import llama_cpp
from llama_cpp import Llama
model, text_path, n_prefill, n_decode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
llm = Llama(model_path=model, n_ctx=n_prefill + n_decode + 16, n_threads=1, n_threads_batch=1, n_batch=512,
            verbose=False, seed=42)
tokens = llm.tokenize(open(text_path, encoding="utf-8").read().encode())[:n_prefill]
t = time.process_time(); llm.eval(tokens); prefill = time.process_time() - t
out = []
t = time.process_time()
for _ in range(n_decode):
    tok = llm.sample(temp=0.0); out.append(tok); llm.eval([tok])
decode = time.process_time() - t
print(json.dumps({"system_info": llama_cpp.llama_print_system_info().decode(), "prefill_tps": len(tokens) / prefill,
                  "decode_tps": n_decode / decode, "continuation": llm.detokenize(out).decode(errors="replace")}))
"""


def measure(site: str | None, model: Path, text: Path, n_prefill: int, n_decode: int) -> dict:
    env = dict(os.environ)
    if site:
        env["PYTHONPATH"] = os.pathsep.join([site, env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(model), str(text), str(n_prefill), str(n_decode)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--native-site", required=True, help="pip --target install of the GGML_NATIVE=ON build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--prefill", type=int, default=1500)
    ap.add_argument("--decode", type=int, default=48)
    ap.add_argument("--models-dir", default=str(ROOT / "models"))
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    model = verified_path(WEIGHTS, args.models_dir)
    text = next((ROOT.parent / "shared" / "seeds").glob("000_*.txt"), ROOT / "README.md")
    runs: dict[str, list[dict]] = {"portable": [], "native": []}
    for _ in range(args.reps):
        runs["portable"].append(measure(None, model, text, args.prefill, args.decode))
        runs["native"].append(measure(args.native_site, model, text, args.prefill, args.decode))
    summary = {
        name: {
            "system_info": rs[0]["system_info"],
            "prefill_tps_median": statistics.median(r["prefill_tps"] for r in rs),
            "decode_tps_median": statistics.median(r["decode_tps"] for r in rs),
        }
        for name, rs in runs.items()
    }
    ratios = {
        kind: [n[f"{kind}_tps"] / p[f"{kind}_tps"] for p, n in zip(runs["portable"], runs["native"], strict=True)]
        for kind in ("prefill", "decode")
    }
    result = {
        "model": WEIGHTS,
        "sha256": get_weights(WEIGHTS).sha256,
        "text": text.name,
        "n_prefill": args.prefill,
        "n_decode": args.decode,
        "reps": args.reps,
        "clock": "process CPU time, 1 thread",
        "load_avg": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        **summary,
        "native_over_portable": {
            k: {"median": statistics.median(v), "min": min(v), "max": max(v)} for k, v in ratios.items()
        },
        "same_continuation": all(
            p["continuation"] == n["continuation"] for p, n in zip(runs["portable"], runs["native"], strict=True)
        ),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
