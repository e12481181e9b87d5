"""Scale-out on Ray: ``trace-crs evaluate --executor ray`` (ARCHITECTURE §4: identical output on any executor).

The pending chunks (non-LLM and LLM) are dealt round-robin to ``workers`` Ray actors; each
actor loads the KB and the run's dialogues once (same file, subset and seed as the driver),
builds the baselines once, and runs its chunks exactly as the local executor does —
:func:`trace_crs.runner.execute.run_chunk` for non-LLM baselines,
:func:`trace_crs.runner.llm_pool.run_jobs` with ``ceil(concurrency / workers)`` threads for LLM
baselines — writing the same atomic chunk files, so the output equals the local executor's
and a killed run resumes the same way.  The run directory, the KB, the dialogues and the LM
cache must be on a filesystem every node sees (on one machine they are).

``ray_address`` (run config) or ``$RAY_ADDRESS`` names a cluster; without either, Ray starts
a local one.  ``lm.api_base`` may list several endpoints separated by commas (several
llama.cpp or vLLM servers, one per GPU): actor ``i`` uses endpoint ``i mod n``.  A cost budget
needs the local executor (one guard must see every job).  Ray is optional (``pip install
"ray[default]"``); without it ``--executor ray`` is a usage error.
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from pathlib import Path
from typing import Any

from trace_crs.errors import UsageError

EXECUTORS: tuple[str, ...] = ("local", "ray")


class ShardRunner:
    """One actor: the run's KB, dialogues and baselines, built once; runs chunks on demand."""

    def __init__(self, cfg: Any, names: list[str], lm: dict[str, Any] | None, concurrency: int) -> None:
        from trace_crs.baselines.registry import uses_llm
        from trace_crs.kb import load_kb
        from trace_crs.runner.execute import build_baselines, show_corpus
        from trace_crs.runner.tasks import chunks, load_evaluated

        self.cfg, self.concurrency = cfg, concurrency
        self.kb = load_kb(cfg.kb)
        dialogues = load_evaluated(cfg.dialogues, cfg.subset, cfg.seed)
        self.parts = chunks(dialogues, cfg.chunk_size)
        self.llm = [n for n in names if uses_llm(n)]
        self.non_llm = build_baselines([n for n in names if not uses_llm(n)], self.kb)
        self.llm_baselines = (
            build_baselines(self.llm, self.kb, lm_config=lm, seed=cfg.seed, prefilter=cfg.prefilter) if self.llm else {}
        )
        show_corpus({**self.non_llm, **self.llm_baselines}, dialogues, self.kb, cfg.pool, cfg.seed)

    def run(self, todo: dict[int, dict[str, str]]) -> int:
        """Write the chunk files of ``todo`` (``{chunk: {baseline: path}}``); returns how many."""
        from trace_crs.runner.execute import run_chunk
        from trace_crs.runner.llm_pool import run_jobs

        cfg = self.cfg
        for k in sorted(todo):
            targets = {n: Path(p) for n, p in todo[k].items() if n in self.non_llm}
            if targets:
                run_chunk(self.non_llm, self.kb, self.parts[k], cfg.pool, cfg.seed, targets)
        if self.llm:
            run_jobs(
                self.llm_baselines,
                self.kb,
                self.parts,
                todo,
                self.llm,
                cfg.pool,
                cfg.seed,
                time.perf_counter,
                self.concurrency,
            )
        return sum(len(t) for t in todo.values())

    def close(self) -> None:
        for b in self.llm_baselines.values():
            b.close()


def check_ray(cfg: Any) -> None:
    """Usage errors of ``--executor ray``, raised before the run directory is touched."""
    if importlib.util.find_spec("ray") is None:
        raise UsageError('--executor ray: Ray is not installed (pip install "ray[default]")')
    if cfg.max_cost_usd is not None:
        raise UsageError("--max-cost-usd needs --executor local (one cost guard must see every job)")


def run_on_ray(
    cfg: Any,
    todo: dict[int, dict[str, str]],
    names: list[str],
    lm: dict[str, Any] | None,
    workers: int,
    concurrency: int,
) -> int:
    """Every pending chunk of ``todo`` on Ray actors; returns the number of chunk files written."""
    check_ray(cfg)
    import ray

    pending = sorted(todo)
    if not pending:
        return 0
    address = getattr(cfg, "ray_address", None) or os.environ.get("RAY_ADDRESS")
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False) if address else ray.init(
            num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False
        )
    n = max(1, min(workers, len(pending)))
    actor = ray.remote(ShardRunner)
    from trace_crs.runner.llm_pool import endpoint_configs

    runners: list[Any] = [
        actor.remote(cfg, names, lm_i, math.ceil(concurrency / n)) for lm_i in endpoint_configs(lm, n)
    ]
    try:
        shards = [{k: todo[k] for k in pending[i::n]} for i in range(n)]
        return sum(ray.get([r.run.remote(s) for r, s in zip(runners, shards, strict=False)]))
    finally:
        ray.get([r.close.remote() for r in runners])
        for r in runners:
            ray.kill(r)
