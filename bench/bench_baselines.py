"""Benchmark of the non-LLM baselines and the runner (issue 4 item 6; not a timed test).

1. Per baseline: turns/s of a serial, single-process run over ``--per-baseline`` dialogues
   (includes index building and, for Dense/Hybrid-RRF, query embedding; the model load and the
   POI embeddings are warmed first and reported separately).
2. Total: wall time of ``trace-crs evaluate`` with all 9 non-LLM baselines over ``--n``
   dialogues on the closed pool with ``--workers`` processes, from a cold query cache, and the
   peak RSS of the parent and of the largest worker (``ru_maxrss``).
Target (issue 4): all 9 over 10,000 closed-set dialogues ≤ 600 s on 2 cores, peak RSS ≤ 4 GB.
Without ``--kb``/``--dialogues`` the paper-scale synthetic KB (100 POIs per city × type) and
``--n`` simulated dialogues are built first.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from trace_crs.baselines.registry import NON_LLM
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.kb.store import dump_jsonl, load_kb
from trace_crs.runner.execute import build_baselines, predict_records
from trace_crs.runner.run import RunConfig, evaluate
from trace_crs.runner.tasks import turn_contexts


def _inputs(args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    if args.kb and args.dialogues:
        return args.kb, args.dialogues
    from trace_crs.dialogues.generate import generate_simulated, write_corpus
    from trace_crs.kb.kbstats import cell_counts
    from trace_crs.kb.store import write_kb
    from trace_crs.kb.synthetic import build_synthetic

    kb_dir = Path(args.kb) if args.kb else tmp / "kb"
    if not args.kb:
        pois, reviews, manifest = build_synthetic(per_cell=100, seed=args.seed)
        write_kb(pois, reviews, kb_dir, {**manifest, "counts": cell_counts(pois)})
    path = tmp / "dialogues.jsonl"
    write_corpus(generate_simulated(load_kb(kb_dir), args.n, args.seed), path)
    return str(kb_dir), str(path)


def per_baseline(kb_dir: str, dialogues_path: str, n: int, seed: int) -> dict[str, dict[str, float]]:
    kb = load_kb(kb_dir)
    dialogues = load_dialogues(dialogues_path)[:n]
    contexts = [c for d in dialogues for c in turn_contexts(d, kb, "closed", seed)]
    out = {}
    for name in NON_LLM:
        start = time.perf_counter()
        baselines = build_baselines([name], kb)          # model load + POI embeddings
        mid = time.perf_counter()
        predict_records(name, baselines[name], contexts, time.perf_counter)
        end = time.perf_counter()
        out[name] = {"prepare_s": round(mid - start, 3), "turns": len(contexts),
                     "turns_per_s": round(len(contexts) / (end - mid), 1)}
        print(f"{name:12s} prepare {mid - start:7.2f} s  {len(contexts) / (end - mid):8.1f} turns/s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb")
    parser.add_argument("--dialogues")
    parser.add_argument("--n", type=int, default=10000, help="dialogues (generated when --dialogues is absent)")
    parser.add_argument("--per-baseline", type=int, default=300, help="dialogues for the per-baseline rates")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", help="write the JSON result here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["TRACE_CACHE_DIR"] = str(tmp / "cache")
        kb_dir, dialogues_path = _inputs(args, tmp)
        result = {"kb": kb_dir, "dialogues": dialogues_path, "workers": args.workers,
                  "per_baseline": per_baseline(kb_dir, dialogues_path, args.per_baseline, args.seed)}
        for stale in (tmp / "cache").glob("dense_query_*.npy"):
            stale.unlink()                                  # the total run starts from a cold query cache
        subset = args.n if not args.dialogues else None
        if args.dialogues:
            subset = min(args.n, len(load_dialogues(args.dialogues)))
        cfg = RunConfig(kb=kb_dir, dialogues=dialogues_path, baselines="non-llm", pool="closed", subset=subset,
                        seed=args.seed)
        start = time.perf_counter()
        manifest = evaluate(cfg, tmp / "run", workers=args.workers, progress=True)
        wall = time.perf_counter() - start
        result.update({
            "n_dialogues": subset, "n_records": manifest["n_records"], "total_wall_s": round(wall, 1),
            "turns_per_s_all_baselines": round(manifest["n_records"] / wall, 1),
            "peak_rss_parent_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "peak_rss_worker_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
            "fallbacks": {k: v["fallbacks"] for k, v in manifest["counts"].items()},
            "target": {"total_wall_s": 600, "peak_rss_mb": 4096},
        })
    print(json.dumps(result, indent=2, sort_keys=True))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        dump_jsonl([result], args.out)


if __name__ == "__main__":
    main()
