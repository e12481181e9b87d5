"""Where the LLM chunks of a run execute (ARCHITECTURE §4, concurrency and workers): in this process with a pool
of threads (:func:`trace_crs.runner.llm_pool.run_jobs`), or — for an API model without a cost
budget, ``workers`` > 1 — in ``workers`` spawned processes that share the concurrency
(``ceil(concurrency / workers)`` threads each) and take the pending chunks round-robin.

The GIL caps one process at about one core of work per request (≈ 14–18 ms of CPU a request
for the six LLM baselines against the fake server, 4 ms of it the DSPy call and 3–6 ms
Memory-Aug.'s MiniLM; README "Measured here"), so a second process doubles the requests a
2-core machine can prepare.  Chunk files are self-contained, so the records do not depend on
the split.  A local llama.cpp backend stays in one process (each process would start its own
server), and so does a run with ``max_cost_usd`` (one guard must see every job).  Once the KB
and the baselines are built they are frozen out of the cyclic garbage collector
(``gc.freeze``): each full collection otherwise walked the whole KB while hundreds of request
threads waited (2.8 s of 40 s CPU on 100 dialogues).
"""

from __future__ import annotations

import gc
import math
import multiprocessing as mp
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trace_crs.kb import KB, load_kb
from trace_crs.lm.process import die_with_parent
from trace_crs.runner.budget import CostGuard
from trace_crs.runner.execute import Clock, build_baselines
from trace_crs.runner.llm_pool import auto_concurrency, endpoint_configs, run_jobs
from trace_crs.runner.tasks import chunks, load_evaluated


@dataclass(frozen=True)
class Work:
    """What one process executes: the run config, KB, evaluated dialogues and their chunks, the
    pending chunk files per baseline (``todo``), the LLM baselines, the clock and progress."""

    cfg: Any
    kb: KB
    dialogues: list[dict[str, Any]]
    parts: list[list[dict[str, Any]]]
    todo: dict[int, dict[str, str]]
    llm: list[str]
    clock: Clock = time.perf_counter
    progress: bool = False


def run_llm(work: Work, out: Path, lm: dict[str, Any], workers: int = 1) -> CostGuard | None:
    """The pending LLM chunks of ``work.llm``; returns the cost guard (None without a budget)."""
    cfg, todo, llm = work.cfg, work.todo, work.llm
    concurrency = auto_concurrency(cfg.concurrency, lm)
    pending = sorted(k for k in todo if any(n in todo[k] for n in llm))
    processes = min(workers, len(pending))
    if processes > 1 and cfg.max_cost_usd is None and lm.get("model") != "local":
        lms = endpoint_configs(lm, processes)  # several comma-separated api_base: one each
        shards = [
            (cfg, lms[i], {k: todo[k] for k in pending[i::processes]}, llm, math.ceil(concurrency / processes))
            for i in range(processes)
        ]
        with mp.get_context("spawn").Pool(processes, die_with_parent) as pool:  # a kill -9 leaves no orphan
            pool.map(_shard, shards)
        return None
    guard = None
    if cfg.max_cost_usd is not None:
        done = [p for n in llm for p in (out / "records" / n).glob("*.parquet")]
        guard = CostGuard.from_records(cfg.max_cost_usd, done)
    complete = _in_process(work, endpoint_configs(lm, 1)[0], concurrency, guard)
    if guard is not None:
        guard.stopped = not complete
    return guard


def _in_process(work: Work, lm: dict[str, Any] | None, concurrency: int, guard: CostGuard | None) -> bool:
    cfg = work.cfg
    baselines = build_baselines(work.llm, work.kb, lm_config=lm, seed=cfg.seed, prefilter=cfg.prefilter)
    try:
        gc.freeze()  # the KB and the baselines outlive the run: no full collection walks them again
        # Memory-Aug.: memory fixed in corpus order, in the background (llm_pool.see_corpus_later)
        return run_jobs(
            baselines,
            work.kb,
            work.parts,
            work.todo,
            work.llm,
            cfg.pool,
            cfg.seed,
            work.clock,
            concurrency,
            guard,
            work.progress,
            corpus=work.dialogues,
        )
    finally:
        gc.unfreeze()
        for baseline in baselines.values():
            baseline.close()  # stops the local llama.cpp server


def _shard(task: tuple[Any, dict[str, Any] | None, dict[int, dict[str, str]], list[str], int]) -> None:
    """One process's share of the chunks (the dialogues are re-read: same file, subset, seed)."""
    cfg, lm, todo, llm, concurrency = task
    dialogues = load_evaluated(cfg.dialogues, cfg.subset, cfg.seed)
    _in_process(
        Work(cfg, load_kb(cfg.kb), dialogues, chunks(dialogues, cfg.chunk_size), todo, llm), lm, concurrency, None
    )
