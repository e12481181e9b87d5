"""Throughput of the local LM backend on the default LLM run (not a timed test).

``trace-crs evaluate`` runs LLM baselines (default LLM Zero-Shot: RAG-Citation's 600-token
replies take ~5 min a turn on one thread), closed pool, log-prob ranking, on a seeded subset of
``--subset`` dialogues (≥ 2: a dialogue is the unit of concurrency) on the local llama.cpp
backend in the configurations of ``--configs`` (default ``pool,slots``: today's default path vs
parallel slots, 4 dialogues, 1 repeat — ``make bench``'s small n), interleaved
``--repeats`` times, each run with an empty LM cache of its own:

* **serial** — the path before Trace's worker: llama-cpp-python's own server with
  ``logits_all``, one process with 1 thread, concurrency 1
  (``lm.server=llama_cpp lm.servers=1 lm.n_threads=1 concurrency=1``);
* **pool** — the new default path: ``--threads`` 1-thread processes of Trace's worker
  (:mod:`trace_crs.lm.llama_worker`; 0: the cores free at start,
  ``lm.config.default_threads``), concurrency = their number;
* **worker** (optional, ``--configs``) — one 1-thread worker process, concurrency 1: the
  worker's share of the gain without the pool's;
* **threads** (optional, ``--configs``) — one server with ``--threads`` threads, concurrency 1;
* **draft** (``--configs pool,draft``) — the pool with prompt-lookup drafts on every worker
  (``lm.draft=prompt-lookup``, :mod:`trace_crs.lm.prompt_lookup`): speculative decoding alone;
* **slots** (``--configs pool,slots``, what ``make bench`` runs) — one worker process with
  ``--threads`` threads and ``--slots`` parallel slots (:mod:`trace_crs.lm.batch_engine`),
  concurrency = slots; ``--subset`` should be ≥ slots (a dialogue's calls are sequential).

Reported per configuration: wall seconds of the whole ``evaluate`` (server start included),
aggregate turns/s and tokens/s (records' prompt + completion tokens over wall), medians over
the repeats, each configuration's medians over the first's, the 1-minute load average before each run,
and whether every run wrote the same records (``records.parquet`` minus ``latency_s``).
Writes ``--out`` (JSON) and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

KB, DIALOGUES = "data/kb/default", "data/dialogues/default/dialogues.jsonl"
SMOKE_KB, SMOKE_DIALOGUES = "data/kb/smoke", "data/dialogues/smoke/dialogues.jsonl"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TQDM_DISABLE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def inputs(kb: str, dialogues: str) -> tuple[str, str]:
    """``--kb``/``--dialogues`` if present, else the smoke corpus (``make data-smoke``)."""
    for k, d in ((kb, dialogues), (SMOKE_KB, SMOKE_DIALOGUES)):
        if Path(k, "pois.jsonl").is_file() and Path(d).is_file():
            return k, d
    raise SystemExit(f"{kb} / {dialogues} missing (and no smoke corpus): build the data first")


def configs(threads: int, names: str = "serial,pool", slots: int = 4) -> dict[str, list[str]]:
    """``--set`` overrides of the configurations ``names`` (module docstring)."""
    known = {
        "slots": [f"lm.n_threads={threads}", "lm.servers=1", f"lm.slots={slots}", "concurrency=0"],
        "serial": ["lm.server=llama_cpp", "lm.servers=1", "lm.n_threads=1", "concurrency=1"],
        "worker": ["lm.servers=1", "lm.n_threads=1", "concurrency=1"],
        "pool": [f"lm.n_threads={threads}", "lm.servers=0", "concurrency=0"],
        "draft": [f"lm.n_threads={threads}", "lm.servers=0", "concurrency=0", "lm.draft=prompt-lookup"],
        "threads": [f"lm.n_threads={threads}", "lm.servers=1", "concurrency=1"],
    }
    return {n: known[n] for n in names.split(",")}


def run_once(args: argparse.Namespace, kb: str, dialogues: str, sets: list[str], tmp: Path, tag: str) -> dict[str, Any]:
    """One cold-cache ``trace-crs evaluate``; wall seconds, turns, tokens and the records."""
    out = tmp / tag
    cmd = [
        sys.executable,
        "-m",
        "trace_crs",
        "evaluate",
        "--kb",
        kb,
        "--dialogues",
        dialogues,
        "--baselines",
        args.baselines,
        "--pool",
        "closed",
        "--subset",
        str(args.subset),
        "--seed",
        str(args.seed),
        "--quiet",
        "--out",
        str(out),
        "--set",
        f"lm.weights={args.weights}",
        "--set",
        f"lm.models_dir={args.models_dir}",
        "--set",
        f"lm.cache_dir={tmp / (tag + '-lm')}",
    ]
    for s in sets:
        cmd += ["--set", s]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    subprocess.run(cmd, env=ENV, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    table = pq.read_table(out / "records.parquet")
    tokens = sum(table.column("prompt_tokens").to_pylist()) + sum(table.column("completion_tokens").to_pylist())
    return {
        "wall_s": round(wall, 2),
        "turns": table.num_rows,
        "tokens": tokens,
        "load_1min": round(load, 2),
        "turns_per_s": round(table.num_rows / wall, 4),
        "tokens_per_s": round(tokens / wall, 1),
        "fallbacks": sum(table.column("fallback").to_pylist()),
        "records": table.drop(["latency_s"]).to_pylist(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", default=KB)
    ap.add_argument("--dialogues", default=DIALOGUES)
    ap.add_argument("--baselines", default="llm_zero_shot")
    ap.add_argument("--subset", type=int, default=4)
    ap.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    ap.add_argument("--models-dir", default="models")
    ap.add_argument(
        "--threads",
        type=int,
        default=2,
        help="threads of the pool (as 1-thread servers) and threads configs; 0 = auto (free cores)",
    )
    ap.add_argument(
        "--configs",
        default="pool,slots",
        help="comma-separated: serial, pool, worker, threads, slots, draft; the first is the reference",
    )
    ap.add_argument("--slots", type=int, default=4, help="parallel slots of the slots config")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", default="results/bench/lm_throughput.json")
    args = ap.parse_args()
    kb, dialogues = inputs(args.kb, args.dialogues)
    plan = configs(args.threads, args.configs, args.slots)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in plan}
    with tempfile.TemporaryDirectory(prefix="bench-lm-throughput-") as name:
        for r in range(args.repeats):  # interleaved: serial, pool, serial, pool, ...
            for label, sets in plan.items():
                runs[label].append(run_once(args, kb, dialogues, sets, Path(name), f"{label}{r}"))
                print(f"{label} #{r}: {runs[label][-1]['wall_s']} s, load {runs[label][-1]['load_1min']}", flush=True)
    reference = next(iter(runs.values()))[0]["records"]
    identical = all(run["records"] == reference for rs in runs.values() for run in rs)
    summary: dict[str, Any] = {}
    for label, rs in runs.items():
        summary[label] = {
            "median_wall_s": statistics.median(r["wall_s"] for r in rs),
            "median_turns_per_s": statistics.median(r["turns_per_s"] for r in rs),
            "median_tokens_per_s": statistics.median(r["tokens_per_s"] for r in rs),
            "runs": [{k: v for k, v in r.items() if k != "records"} for r in rs],
        }
    first = next(iter(plan))
    ratios = {
        f"{label}_over_{first}": {
            m: round(summary[label][f"median_{m}"] / summary[first][f"median_{m}"], 2)
            for m in ("turns_per_s", "tokens_per_s")
        }
        for label in list(plan)[1:]
    }
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "weights": args.weights,
        "baselines": args.baselines,
        "subset": args.subset,
        "kb": kb,
        "dialogues": dialogues,
        "cores": len(os.sched_getaffinity(0)),
        "threads": args.threads,
        "n_slots": args.slots,
        "configs": plan,
        "differing_records": {
            label: [
                sum(a != b for a, b in zip(reference, run["records"], strict=False))
                + abs(len(reference) - len(run["records"]))
                for run in rs
            ]
            for label, rs in runs.items()
        },
        **summary,
        "ratios": ratios,
        "records_identical": identical,
    }
    text = json.dumps(result, indent=2, sort_keys=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
