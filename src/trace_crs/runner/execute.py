"""Running baselines over one chunk of dialogues, in-process or in a worker process.

Every failure of ``predict`` becomes the Popularity fallback with the error recorded in the
record (``fallback=True``, ``error``) — the paper's fallback rule (Appendix F) — so a run never
loses a turn; the runner reports fallback counts per baseline in ``MANIFEST.json``.
Workers are started with the ``spawn`` method (safe with torch) and rebuild the KB and the
baselines once (:func:`init_worker`); shared indexes and embedding caches are per process.
"""
from __future__ import annotations

import inspect
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.popularity import fallback_output
from trace_crs.baselines.registry import GROUPS, baseline_class, create
from trace_crs.kb import KB, load_kb
from trace_crs.runner.records import to_record, write_chunk
from trace_crs.runner.tasks import turn_contexts

Clock = Callable[[], float]


def build_baselines(names: list[str], kb: KB, **llm_kwargs: Any) -> dict[str, Any]:
    """Instantiate and ``prepare`` each baseline once; ``llm_kwargs`` (``lm_config``, ``seed``,
    ``prefilter``) go to the LLM baselines that take them."""
    out = {}
    for name in names:
        kwargs = llm_kwargs if GROUPS[name] == "LLM" else {}
        accepted = inspect.signature(baseline_class(name)).parameters
        baseline = create(name, **{k: v for k, v in kwargs.items() if k in accepted})
        baseline.prepare(kb)
        out[name] = baseline
    return out


def predict_records(name: str, baseline: Any, contexts: list[TurnContext], clock: Clock) -> list[dict[str, Any]]:
    """Records of one baseline over ``contexts`` (turn order)."""
    warm = getattr(baseline, "warm", None)
    if warm is not None:
        warm(contexts)
    rows = []
    for ctx in contexts:
        start = clock()
        try:
            out = baseline.predict(ctx)
        except Exception as exc:  # noqa: BLE001 — recorded, counted and reported, never dropped
            out = fallback_output(ctx, f"{type(exc).__name__}: {exc}")
        rows.append(to_record(ctx, name, out, clock() - start))
    return rows


def run_chunk(baselines: dict[str, Any], kb: KB, dialogues: list[dict[str, Any]], pool: str, seed: int,
              targets: dict[str, Path], clock: Clock = time.perf_counter) -> dict[str, int]:
    """Predict every turn of ``dialogues`` with each baseline in ``targets`` and write its
    chunk file; returns ``{baseline: records written}``."""
    contexts = [ctx for d in dialogues for ctx in turn_contexts(d, kb, pool, seed)]
    written = {}
    for name, path in targets.items():
        rows = predict_records(name, baselines[name], contexts, clock)
        write_chunk(rows, path)
        written[name] = len(rows)
    return written


_STATE: dict[str, Any] = {}


def init_worker(kb_dir: str, names: list[str], pool: str, seed: int) -> None:
    """Worker start-up: one thread per worker (torch is imported only if a baseline needs it),
    load the KB, build the baselines."""
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    kb = load_kb(kb_dir)
    _STATE.update(kb=kb, baselines=build_baselines(names, kb), pool=pool, seed=seed)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def worker_task(task: tuple[list[dict[str, Any]], dict[str, str]]) -> dict[str, int]:
    """Run one ``(dialogues, {baseline: chunk path})`` task inside a worker."""
    dialogues, targets = task
    return run_chunk(_STATE["baselines"], _STATE["kb"], dialogues, _STATE["pool"], _STATE["seed"],
                     {n: Path(p) for n, p in targets.items()})
