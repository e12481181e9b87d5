"""Benchmark of the 9 non-LLM baselines and the runner (``make bench``, never a
timed test).  Target: all 9 over the 10,000 closed-set dialogues in ≤ 600 s on 2 cores, peak
RSS ≤ 4 GB.

Inputs: the paper-scale corpus (``data/kb/default``: 2,400 POIs, 34.5k reviews;
``data/dialogues/default/dialogues.jsonl``: 10,000 dialogues), or a synthetic one (100 POIs
per city × type, ``--full`` simulated dialogues) when those files are absent.  All caches
start cold in a temporary ``TRACE_CACHE_DIR``.

1. **Per baseline** (one process, serial): a seeded subset of ``--per-baseline`` dialogues in
   the runner's chunks of 50, every baseline over each chunk in registry order — exactly what
   one runner worker does, so the per-process shared work (TF-IDF indexes and scores, quote
   indexes, aspect profiles) is shared the same way.  The first chunk builds those indexes and
   is reported as ``warmup_cpu_s`` (its CPU time minus its turns at the steady rate, ≥ 0; per-POI
   caches keep filling after it, which the steady rate then includes); turns per wall second,
   turns per CPU second and the median ms/turn come from the other chunks.  Torch runs on one
   thread, as in a worker.  Dense's rates include embedding each chunk's queries (cold query
   cache); ``dense_warm_query_cache`` re-runs Dense with the on-disk query cache filled.  The
   Dense POI embeddings (once per KB, on disk) are ``poi_embeddings_s``.
2. **Extrapolation** to the full corpus from the CPU rates: CPU s = Σ_b (workers × warm-up_b +
   turns / rate_b), wall ≈ CPU / workers (if the cores were free; excludes input validation
   and finalisation).
3. **Runner**: ``trace-crs evaluate`` as a subprocess over each of ``--sizes`` dialogues
   (seeded subsets; ``--sizes 10000`` is the full run) with ``--workers``, POI embeddings
   cached, query cache cold.  Wall and CPU seconds, the largest process's peak RSS
   (``ru_maxrss`` of the children) and the peak of the summed RSS of the whole process tree
   (sampled every 0.5 s from /proc).  Extrapolated to the full corpus with the line through
   the two sizes, ``wall(N) = a + b·N`` (start-up ``a`` paid once per run), or proportionally
   from one size.
The machine may be shared: CPU seconds are the steadier number; compare ratios, not walls.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from trace_crs.baselines.dense import poi_embeddings
from trace_crs.baselines.registry import NON_LLM
from trace_crs.cache import memo
from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.kb.store import iter_jsonl, load_kb
from trace_crs.runner.execute import build_baselines, predict_records
from trace_crs.runner.tasks import chunks, load_evaluated, turn_contexts

TARGET_WALL_S, TARGET_RSS_MB = 600, 4096
PAPER_KB, PAPER_DIALOGUES = "data/kb/default", "data/dialogues/default/dialogues.jsonl"


def _inputs(args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    if Path(args.kb, "pois.jsonl").is_file() and Path(args.dialogues).is_file():
        return args.kb, args.dialogues
    from trace_crs.dialogues.generate import generate_simulated, write_corpus
    from trace_crs.kb.kbstats import cell_counts
    from trace_crs.kb.store import write_kb
    from trace_crs.kb.synthetic import build_synthetic

    print(f"{args.kb} or {args.dialogues} missing: building a synthetic corpus", flush=True)
    kb_dir, path = tmp / "kb", tmp / "dialogues.jsonl"
    pois, reviews, manifest = build_synthetic(per_cell=100, seed=args.seed)
    write_kb(pois, reviews, kb_dir, {**manifest, "counts": cell_counts(pois)})
    write_corpus(generate_simulated(load_kb(kb_dir), args.full, args.seed), path)
    return str(kb_dir), str(path)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _one_thread() -> None:
    """What :func:`trace_crs.runner.execute.init_worker` does to a worker's threads."""
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def per_baseline(kb_dir: str, path: str, n: int, seed: int) -> dict[str, Any]:
    """Stage 1: warm-up, turns per wall and per CPU second, median ms/turn per baseline, in
    the runner's order and chunking, single-threaded like a worker."""
    kb = load_kb(kb_dir)
    parts = chunks(load_evaluated(path, n, seed), 50)
    start = time.perf_counter()
    poi_embeddings(kb)  # as the runner does it: default threads, once per KB
    out: dict[str, Any] = {"poi_embeddings_s": round(time.perf_counter() - start, 1), "dialogues": n}
    _one_thread()
    baselines = build_baselines(list(NON_LLM), kb)
    wall = {b: [0.0, 0.0] for b in NON_LLM}  # [first chunk, other chunks]
    cpu = {b: [0.0, 0.0] for b in NON_LLM}
    latency: dict[str, list[float]] = {b: [] for b in NON_LLM}
    turns = [0, 0]
    for k, part in enumerate(parts):
        contexts = [c for d in part for c in turn_contexts(d, kb, "closed", seed)]
        turns[min(k, 1)] += len(contexts)
        for name in NON_LLM:
            start, start_cpu = time.perf_counter(), _cpu()
            rows = predict_records(name, baselines[name], contexts, time.perf_counter)
            wall[name][min(k, 1)] += time.perf_counter() - start
            cpu[name][min(k, 1)] += _cpu() - start_cpu
            latency[name] += [r["latency_s"] for r in rows] if k else []
    memo(kb, "dense_warm").clear()  # same chunks again: queries come from the disk cache
    start, start_cpu = time.perf_counter(), _cpu()
    for part in parts[1:]:
        predict_records(
            "dense",
            baselines["dense"],
            [c for d in part for c in turn_contexts(d, kb, "closed", seed)],
            time.perf_counter,
        )
    warm_dense = (time.perf_counter() - start, _cpu() - start_cpu)
    out["steady_turns"] = turns[1]
    out["baselines"] = {
        name: {
            "warmup_cpu_s": round(max(0.0, cpu[name][0] - turns[0] * cpu[name][1] / turns[1]), 2),
            "turns_per_s": round(turns[1] / wall[name][1], 1),
            "turns_per_cpu_s": round(turns[1] / cpu[name][1], 1),
            "median_ms_per_turn": round(1000 * statistics.median(latency[name]), 3),
        }
        for name in NON_LLM
    }
    out["baselines"]["dense_warm_query_cache"] = {
        "warmup_cpu_s": 0.0,
        "turns_per_s": round(turns[1] / warm_dense[0], 1),
        "turns_per_cpu_s": round(turns[1] / warm_dense[1], 1),
    }
    out["peak_rss_mb_one_process_all_baselines"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def count_turns(path: str, n: int) -> tuple[int, int]:
    """``(dialogues, system recommend/compare turns)`` of the first ``n`` dialogues of ``path``."""
    dialogues = turns = 0
    for _, d in iter_jsonl(path):
        if dialogues == n:
            break
        dialogues += 1
        turns += sum(t["role"] == "system" and t["action"] in REC_ACTIONS for t in d["turns"])
    return dialogues, turns


def extrapolate(stage: dict[str, Any], turns: int, workers: int) -> dict[str, Any]:
    """Stage 2: CPU and ideal wall seconds of the full corpus from the per-baseline CPU rates."""
    rows = {b: v for b, v in stage["baselines"].items() if b in NON_LLM}
    cpu = {b: workers * v["warmup_cpu_s"] + turns / v["turns_per_cpu_s"] for b, v in rows.items()}
    warm = dict(cpu, dense=turns / stage["baselines"]["dense_warm_query_cache"]["turns_per_cpu_s"])
    return {
        "turns": turns,
        "workers": workers,
        "cpu_s_by_baseline": {b: round(v, 1) for b, v in cpu.items()},
        "cpu_s": round(sum(cpu.values()), 1),
        "wall_s_ideal": round(sum(cpu.values()) / workers, 1),
        "wall_s_ideal_warm_query_cache": round(sum(warm.values()) / workers, 1),
        "formula": "cpu = Σ_b (workers·warmup_cpu_b + turns/turns_per_cpu_s_b); wall = cpu / workers",
    }


def _tree_rss_mb(root: int) -> float:
    """Summed resident memory of ``root`` and all its descendants (Linux /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {root}, [root]
    while frontier:
        kids = [p for p, pp in parent.items() if pp in frontier and p not in tree]
        tree.update(kids)
        frontier = kids
    total = 0
    for pid in tree:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total / 2**20


def runner(kb_dir: str, path: str, n: int, workers: int, seed: int, tmp: Path) -> dict[str, Any]:
    """Stage 3: the real ``trace-crs evaluate`` over ``n`` dialogues, timed from outside."""
    for stale in (tmp / "cache").glob("dense_query_*.npy"):
        stale.unlink()  # cold query cache; POI embeddings stay
    cmd = [
        sys.executable,
        "-m",
        "trace_crs",
        "evaluate",
        "--kb",
        kb_dir,
        "--dialogues",
        path,
        "--baselines",
        ",".join(NON_LLM),
        "--pool",
        "closed",
        "--subset",
        str(n),
        "--seed",
        str(seed),
        "--workers",
        str(workers),
        "--cache-dir",
        str(tmp / "cache"),
        "--out",
        str(tmp / f"run{n}"),
        "--quiet",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss_mb(proc.pid))
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = proc.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"evaluate failed ({proc.returncode}): {' '.join(cmd)}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    manifest = json.loads(stdout)
    return {
        "dialogues": n,
        "workers": workers,
        "records": manifest["n_records"],
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "records_per_s": round(manifest["n_records"] / wall, 1),
        "peak_rss_mb_largest_process": round(after.ru_maxrss / 1024),
        "peak_rss_mb_process_tree": round(peak[0]),
        "fallbacks": sum(v["fallbacks"] for v in manifest["counts"].values()),
    }


def fit_line(runs: list[dict[str, Any]], full: int) -> dict[str, Any]:
    """Wall seconds of ``full`` dialogues from the runs: the line through the smallest and the
    largest run, or proportional to a single run."""
    lo, hi = runs[0], runs[-1]
    if lo["dialogues"] == hi["dialogues"]:
        return {
            "wall_s": round(hi["wall_s"] * full / hi["dialogues"], 1),
            "formula": f"{hi['wall_s']} s × {full}/{hi['dialogues']}",
        }
    slope = (hi["wall_s"] - lo["wall_s"]) / (hi["dialogues"] - lo["dialogues"])
    start = lo["wall_s"] - slope * lo["dialogues"]
    return {
        "wall_s": round(start + slope * full, 1),
        "startup_s": round(start, 1),
        "s_per_dialogue": round(slope, 4),
        "formula": f"{start:.1f} s + {slope:.4f} s × {full}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default=PAPER_KB)
    parser.add_argument("--dialogues", default=PAPER_DIALOGUES)
    parser.add_argument("--per-baseline", type=int, default=300, help="dialogues for stage 1 (seeded subset)")
    parser.add_argument("--sizes", default="100,500", help="stage-3 run sizes, comma-separated (10000 = full)")
    parser.add_argument("--full", type=int, default=10_000, help="corpus size extrapolated to")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", help="write the JSON result here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        os.environ["TRACE_CACHE_DIR"] = str(tmp / "cache")
        kb_dir, path = _inputs(args, tmp)
        full, turns = count_turns(path, args.full)
        stage1 = per_baseline(kb_dir, path, args.per_baseline, args.seed)
        for b, v in stage1["baselines"].items():
            print(
                f"{b:24s} warm-up {v['warmup_cpu_s']:6.2f} CPU s  {v['turns_per_s']:8.1f} turns/s  "
                f"{v['turns_per_cpu_s']:8.1f} turns/CPU s"
                + (f"  median {v['median_ms_per_turn']:.3f} ms/turn" if "median_ms_per_turn" in v else ""),
                flush=True,
            )
        stage2 = extrapolate(stage1, turns, args.workers)
        print(
            f"extrapolated to {full} dialogues / {turns} turns: {stage2['cpu_s']:.0f} CPU s, "
            f"≈ {stage2['wall_s_ideal']:.0f} s wall on {args.workers} free cores "
            f"({stage2['wall_s_ideal_warm_query_cache']:.0f} s with the query cache warm)",
            flush=True,
        )
        sizes = sorted({min(int(x), full) for x in args.sizes.split(",")})
        stage3 = [runner(kb_dir, path, n, args.workers, args.seed, tmp) for n in sizes]
        for r in stage3:
            print(
                f"evaluate {r['dialogues']} dialogues: {r['wall_s']} s wall, {r['cpu_s']} CPU s, peak RSS "
                f"{r['peak_rss_mb_process_tree']} MB (process tree), {r['peak_rss_mb_largest_process']} MB "
                f"(largest process)",
                flush=True,
            )
        fit = fit_line(stage3, full)
        print(f"evaluate extrapolated to {full} dialogues: {fit['wall_s']} s wall ({fit['formula']})", flush=True)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "kb": kb_dir,
        "dialogues": path,
        "full_dialogues": full,
        "per_baseline": stage1,
        "extrapolation": stage2,
        "runner": stage3,
        "runner_extrapolated": fit,
        "target": {"wall_s": TARGET_WALL_S, "peak_rss_mb": TARGET_RSS_MB},
        "ratio_to_target": {
            "wall_runner_extrapolated": round(fit["wall_s"] / TARGET_WALL_S, 2),
            "wall_ideal_from_rates": round(stage2["wall_s_ideal"] / TARGET_WALL_S, 2),
            "peak_rss": round(max(r["peak_rss_mb_process_tree"] for r in stage3) / TARGET_RSS_MB, 2),
        },
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result["ratio_to_target"], sort_keys=True))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")


if __name__ == "__main__":
    main()
