"""Running baselines over one chunk of dialogues, in-process or in a worker process.

Every failure of ``predict`` becomes the Popularity fallback with the error recorded in the
record (``fallback=True``, ``error``) — the paper's fallback rule (Appendix F) — so a run never
loses a turn; the runner reports fallback counts per baseline in ``MANIFEST.json``.
Workers are started with the ``spawn`` method (safe with torch) and rebuild the KB and the
baselines once (:func:`init_worker`); shared indexes and embedding caches are per process.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trace_crs.baselines.base import TurnContext, show_corpus_to
from trace_crs.baselines.popularity import fallback_output
from trace_crs.baselines.registry import baseline_class, create, uses_llm
from trace_crs.kb import KB, load_kb
from trace_crs.runner.records import Record, to_record, write_chunk
from trace_crs.runner.tasks import turn_contexts

Clock = Callable[[], float]


def build_baselines(names: list[str], kb: KB, **llm_kwargs: Any) -> dict[str, Any]:
    """Instantiate and ``prepare`` each baseline once; ``llm_kwargs`` (``lm_config``, ``seed``,
    ``prefilter``) go to the LLM baselines that take them."""
    out = {}
    for name in names:
        kwargs = llm_kwargs if uses_llm(name) else {}
        accepted = inspect.signature(baseline_class(name)).parameters
        baseline = create(name, **{k: v for k, v in kwargs.items() if k in accepted})
        baseline.prepare(kb)
        out[name] = baseline
    return out


def show_corpus(baselines: dict[str, Any], dialogues: list[dict[str, Any]], kb: KB, pool: str, seed: int) -> None:
    """Hand every baseline that learns from the run's corpus (``see_corpus``: Memory-Aug.'s
    corpus-order memory, Persona-Grounded's leave-one-dialogue-out prior) the redacted
    contexts of all evaluated dialogues, before any turn is predicted — so what it learns does
    not depend on chunking, worker count or completion order."""
    show_corpus_to(baselines.values(), lambda: [c for d in dialogues for c in turn_contexts(d, kb, pool, seed)])


def predict_records(name: str, baseline: Any, contexts: list[TurnContext], clock: Clock) -> list[Record]:
    """Records of one baseline over ``contexts`` (turn order)."""
    warm = getattr(baseline, "warm", None)
    if warm is not None:
        warm(contexts)
    rows = []
    for ctx in contexts:
        start = clock()
        try:
            out = baseline.predict(ctx)
        except Exception as exc:
            out = fallback_output(ctx, f"{type(exc).__name__}: {exc}")
        rows.append(to_record(ctx, name, out, clock() - start))
    return rows


def run_chunk(
    baselines: dict[str, Any],
    kb: KB,
    dialogues: list[dict[str, Any]],
    pool: str,
    seed: int,
    targets: dict[str, Path],
    clock: Clock = time.perf_counter,
) -> dict[str, int]:
    """Predict every turn of ``dialogues`` with each baseline in ``targets`` and write its
    chunk file; returns ``{baseline: records written}``."""
    contexts = [ctx for d in dialogues for ctx in turn_contexts(d, kb, pool, seed)]
    written = {}
    for name, path in targets.items():
        rows = predict_records(name, baselines[name], contexts, clock)
        write_chunk(rows, path)
        written[name] = len(rows)
    return written


def fill_caches(kb_dir: str, names: list[str]) -> None:
    """Build the baselines once so that their on-disk caches (Dense POI embeddings) exist
    before the workers start; the runner calls this in a child process with the default
    thread settings (the ones the cached embeddings were always computed with)."""
    build_baselines(names, load_kb(kb_dir))


_STATE: dict[str, Any] = {}
M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES = -3, 128 * 1024


def fixed_mmap_threshold() -> bool:
    """Have glibc serve every allocation of ≥ 128 KiB with its own mapping, returned to the OS
    when freed (``mallopt(M_MMAP_THRESHOLD)``, which also stops glibc from raising that
    threshold after the first large free).  Without it, the MiniLM activations, a different
    shape in every batch, fragment the heap: a worker's RSS grew from 0.7 to 1.2 GB over 30
    chunks of Dense; with it, it stayed at 0.7 GB.  No effect on results.  False off glibc."""
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
    except (OSError, AttributeError):
        return False


def init_worker(kb_dir: str, names: list[str], pool: str, seed: int, fitted: dict[str, Any] | None = None) -> None:
    """Worker start-up: one thread per worker (torch is imported only if a baseline needs it),
    a fixed mmap threshold (:func:`fixed_mmap_threshold`), load the KB, build the baselines;
    ``fitted`` are baselines the parent already showed the corpus (:func:`show_corpus`), used
    as they are (re-prepared on this process's KB)."""
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    fixed_mmap_threshold()
    kb = load_kb(kb_dir)
    fitted = fitted or {}
    for baseline in fitted.values():
        baseline.prepare(kb)
    baselines = {**build_baselines([n for n in names if n not in fitted], kb), **fitted}
    _STATE.update(kb=kb, baselines={n: baselines[n] for n in names}, pool=pool, seed=seed)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def worker_task(task: tuple[list[dict[str, Any]], dict[str, str]]) -> dict[str, int]:
    """Run one ``(dialogues, {baseline: chunk path})`` task inside a worker."""
    dialogues, targets = task
    return run_chunk(
        _STATE["baselines"],
        _STATE["kb"],
        dialogues,
        _STATE["pool"],
        _STATE["seed"],
        {n: Path(p) for n, p in targets.items()},
    )
