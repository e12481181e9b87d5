"""Benchmark of the LLM half at scale against the fake API (target: 10,000 dialogues in ≤ 45 min; not a timed test).

The paper's LLM configuration — LLM Zero-Shot, DST, RAG-Citation, Multi-Rev. Synth.,
Memory-Aug. and Itinerary-LLM on the closed pool, ``openai/gpt-5.4-mini`` pricing — is run by
``trace-crs evaluate`` against :mod:`trace_crs.lm.fake_server` in its own process (1.5 s
median latency, lognormal σ 0.5, 1 % HTTP 429 without ``Retry-After``; ``--latency-median``,
``--rate-429``):

1. concurrency 1 on a seeded subset of ``--serial-n`` dialogues, extrapolated linearly per
   dialogue to ``--n`` (and to 10,000; the concurrent run both linearly and with its start-up
   counted once: start-up + (wall − start-up) / n × 10,000);
2. concurrency ``--concurrency`` (256, shared by ``--workers`` processes) on ``--n`` dialogues —
   with ``--kill-at F`` the run is killed (SIGKILL) once the server has answered F × the
   expected requests, then re-run, and both invocations are timed together;
3. reported: wall seconds (and the start-up until the first request), CPU seconds (``trace-crs evaluate`` and its workers; the fake server's
   own CPU separately), CPU milliseconds per request, the speed-up (extrapolated serial wall / concurrent wall),
   records expected vs written (turns lost), fallbacks, the faults counted in MANIFEST.json and
   what the server served.  Each run has an empty LM cache of its own.

Defaults are sized for ``make bench`` on a 2-core machine (``--n 300``, ≈ 4–7 min); the issue's target is
``make bench-llm-scale N=10000`` (≤ 45 min).  Writes ``--out`` (JSON) and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.dialogues.subset import select_subset
from trace_crs.kb.store import iter_jsonl

PAPER_KB, PAPER_DIALOGUES = "data/kb/default", "data/dialogues/default/dialogues.jsonl"
BASELINES = "llm_zero_shot,dst,rag_citation,mrs,memory,itinerary_llm"
TARGET_WALL_S, FULL = 45 * 60, 10_000
ENV = {
    **os.environ,
    "OPENAI_API_KEY": "sk-fake-not-a-key",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "HF_HUB_OFFLINE": "1",
    "TQDM_DISABLE": "1",
}


def _inputs(args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    """The project's default corpus, or a synthetic KB with ``--n`` generated dialogues."""
    if Path(args.kb, "pois.jsonl").is_file() and Path(args.dialogues).is_file():
        return args.kb, args.dialogues
    print(f"{args.kb} or {args.dialogues} missing: building a synthetic corpus of {args.n} dialogues", flush=True)
    cli = [sys.executable, "-m", "trace_crs", "--quiet"]
    subprocess.run(
        cli
        + [
            "kb",
            "build",
            "--source",
            "synthetic",
            "--per-cell",
            "100",
            "--seed",
            str(args.seed),
            "--out",
            str(tmp / "kb"),
        ],
        check=True,
        env=ENV,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        cli
        + [
            "dialogues",
            "generate",
            "--kb",
            str(tmp / "kb"),
            "--n",
            str(args.n),
            "--seed",
            str(args.seed),
            "--out",
            str(tmp / "dialogues.jsonl"),
        ],
        check=True,
        env=ENV,
        stdout=subprocess.DEVNULL,
    )
    return str(tmp / "kb"), str(tmp / "dialogues.jsonl")


def expected_records(path: str, n: int, seed: int, baselines: int) -> int:
    """Records a complete run writes: recommend/compare turns of the seeded subset × baselines."""
    rows = [rec for _, rec in iter_jsonl(path)]
    turns = sum(
        t["role"] == "system" and t["action"] in REC_ACTIONS for d in select_subset(rows, n, seed) for t in d["turns"]
    )
    return turns * baselines


def stats(api_base: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{api_base}/stats", timeout=10) as resp:
        return json.load(resp)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _watch(proc: subprocess.Popen, api_base: str, kill_after: int = 0) -> float:
    """Wait for ``proc`` (SIGKILLed once the server has answered ``kill_after`` more requests);
    returns the seconds until its first request reached the server (its start-up)."""
    start, before, first = time.perf_counter(), stats(api_base)["requests"], None
    while proc.poll() is None:
        served = stats(api_base)["requests"] - before
        if first is None and served:
            first = time.perf_counter() - start
        if kill_after and served >= kill_after:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        time.sleep(0.5)
    return first if first is not None else time.perf_counter() - start


def run(
    args: argparse.Namespace,
    kb: str,
    path: str,
    api_base: str,
    n: int,
    concurrency: int,
    tmp: Path,
    kill_after: int = 0,
    server_pid: int = 0,
) -> dict[str, Any]:
    """One ``trace-crs evaluate`` (killed once after ``kill_after`` requests, then re-run)."""
    out = tmp / f"run_c{concurrency}_n{n}"
    cmd = [
        sys.executable,
        "-m",
        "trace_crs",
        "evaluate",
        "--kb",
        kb,
        "--dialogues",
        path,
        "--subset",
        str(n),
        "--baselines",
        args.baselines,
        "--concurrency",
        str(concurrency),
        "--quiet",
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers if concurrency > 1 else 1),
        "--set",
        f"lm.model={args.model}",
        "--set",
        f"lm.api_base={api_base}",
        "--set",
        "lm.mode=generative",
        "--set",
        f"lm.cache_dir={tmp / f'lm_c{concurrency}_n{n}'}",
        "--out",
        str(out),
    ]
    before, cpu, server_cpu = stats(api_base)["requests"], _children_cpu(), _proc_cpu(server_pid)
    start, startup, killed_at = time.perf_counter(), 0.0, None
    if kill_after:
        startup += _watch(
            subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), api_base, kill_after
        )
        killed_at = round(time.perf_counter() - start, 1)
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL)
    startup += _watch(proc, api_base)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    wall = time.perf_counter() - start
    manifest = json.loads((out / "MANIFEST.json").read_text())
    faults: dict[str, int] = {}
    for per in manifest["faults"].values():
        for cls, k in per.items():
            faults[cls] = faults.get(cls, 0) + k
    records, requests, cpu = manifest["n_records"], stats(api_base)["requests"] - before, _children_cpu() - cpu
    return {
        "dialogues": n,
        "concurrency": concurrency,
        "processes": args.workers if concurrency > 1 else 1,
        "wall_s": round(wall, 1),
        "startup_s": round(startup, 1),
        "cpu_s": round(cpu, 1),
        "cpu_ms_per_request": round(1000 * cpu / max(requests, 1), 2),
        "server_cpu_s": round(_proc_cpu(server_pid) - server_cpu, 1),
        "killed_after_s": killed_at,
        "requests": requests,
        "records": records,
        "expected_records": expected_records(path, n, args.seed, len(args.baselines.split(","))),
        "fallbacks": sum(c["fallbacks"] for c in manifest["counts"].values()),
        "faults_in_manifest": faults,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kb", default=PAPER_KB)
    p.add_argument("--dialogues", default=PAPER_DIALOGUES)
    p.add_argument("--n", type=int, default=300, help="dialogues of the concurrent run (10000 = the paper's)")
    p.add_argument("--serial-n", type=int, default=10, help="dialogues of the concurrency-1 run (extrapolated)")
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--workers", type=int, default=2, help="LLM processes of the concurrent run (share --concurrency)")
    p.add_argument("--baselines", default=BASELINES)
    p.add_argument("--model", default="openai/gpt-5.4-mini", help="litellm model id (its price is used)")
    p.add_argument("--latency-median", type=float, default=1.5)
    p.add_argument("--rate-429", type=float, default=0.01)
    p.add_argument(
        "--kill-at", type=float, default=0.0, help="kill -9 the concurrent run at this fraction of its requests"
    )
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", help="write the JSON result here")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-llm-scale-") as name:
        tmp = Path(name)
        kb, path = _inputs(args, tmp)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "trace_crs.lm.fake_server",
                "--port",
                "0",
                "--seed",
                str(args.seed),
                "--latency-median",
                str(args.latency_median),
                "--rate",
                f"429={args.rate_429}",
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        try:
            api_base = server.stdout.readline().strip()
            serial = run(args, kb, path, api_base, args.serial_n, 1, tmp, server_pid=server.pid)
            print(f"concurrency 1, {serial['dialogues']} dialogues: {serial['wall_s']} s", flush=True)
            per_dialogue_requests = serial["requests"] / serial["dialogues"]
            kill_after = int(args.kill_at * per_dialogue_requests * args.n)
            conc = run(args, kb, path, api_base, args.n, args.concurrency, tmp, kill_after, server.pid)
            print(f"concurrency {args.concurrency}, {conc['dialogues']} dialogues: {conc['wall_s']} s", flush=True)
        finally:
            server.send_signal(signal.SIGTERM)
            served = json.loads(server.communicate(timeout=60)[0].strip().splitlines()[-1])
    per_serial = serial["wall_s"] / serial["dialogues"]
    per_conc = conc["wall_s"] / conc["dialogues"]
    # start-up (imports, KB, MiniLM, baselines: until the first request) does not grow with n
    steady = (conc["wall_s"] - conc["startup_s"]) / conc["dialogues"]
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "model": args.model,
        "baselines": args.baselines,
        "latency_median_s": args.latency_median,
        "rate_429": args.rate_429,
        "serial": serial,
        "concurrent": conc,
        "served": served,
        "serial_extrapolated_wall_s": round(per_serial * conc["dialogues"], 1),
        "speedup": round(per_serial * conc["dialogues"] / conc["wall_s"], 1),
        "turns_lost": conc["expected_records"] - conc["records"],
        "extrapolated_to_10000": {
            "serial_wall_s": round(per_serial * FULL),
            "concurrent_wall_s": round(per_conc * FULL),
            "concurrent_wall_s_startup_once": round(conc["startup_s"] + steady * FULL),
            "target_wall_s": TARGET_WALL_S,
            "ratio_to_target": round(per_conc * FULL / TARGET_WALL_S, 2),
        },
    }
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
