"""Concurrent LLM turns inside ``trace-crs evaluate`` (ARCHITECTURE §4 ``concurrency``; paper checklist item 8:
"async harness concurrency (semaphore) 256–512").

A job is one (baseline, dialogue): its turns run in order in one thread (DST re-tracks its
state from the history, Memory-Aug. reads a memory fixed before the run), different jobs run
concurrently in a pool of ``concurrency`` threads (the LM calls are blocking HTTP requests).
At most ``concurrency`` jobs are in flight; jobs are started in corpus order (chunk, dialogue,
baseline).  A chunk file of a baseline is written once all its dialogues are done, rows in
dialogue order, so its bytes — and ``records.parquet`` — do not depend on concurrency or
completion order (only ``latency_s`` does).  Beside each chunk file, ``<chunk>.faults.json``
holds the endpoint faults its LM calls met (:mod:`trace_crs.lm.faults`), written first: a
chunk file present means both are final; a kill loses only unfinished chunks, which a re-run
redoes (their answers replay from the LM cache).

``concurrency`` auto (None or 0): the number of local llama.cpp server processes
(:func:`trace_crs.lm.config.server_plan`; each answers one request at a time), :data:`API_CONCURRENCY`
for an API model.  A :class:`~trace_crs.runner.budget.CostGuard` may stop the admission of new
jobs; in-flight jobs finish and their complete chunks are kept.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from trace_crs.atomic import write_text
from trace_crs.kb import KB
from trace_crs.lm.faults import counting_faults
from trace_crs.runner.execute import Clock, predict_records, show_corpus
from trace_crs.runner.records import Record, write_chunk
from trace_crs.runner.tasks import turn_contexts

API_CONCURRENCY = 64
FAULTS_SUFFIX = ".faults.json"


def auto_concurrency(concurrency: int | None, lm: dict[str, Any] | None) -> int:
    """``concurrency`` if set (≥ 1), else the backend's default (module docstring)."""
    if concurrency:
        return int(concurrency)
    if lm is not None and lm.get("model") != "local":
        return API_CONCURRENCY
    from trace_crs.lm.config import local_concurrency

    return local_concurrency(*(int((lm or {}).get(k) or 0) for k in ("n_threads", "servers", "slots")))


def endpoint_configs(lm: dict[str, Any] | None, n: int) -> list[dict[str, Any] | None]:
    """``n`` LM blocks with the comma-separated ``api_base`` endpoints dealt round-robin."""
    if not lm or not lm.get("api_base") or "," not in str(lm["api_base"]):
        return [lm] * n
    bases = [b.strip() for b in str(lm["api_base"]).split(",") if b.strip()]
    return [{**lm, "api_base": bases[i % len(bases)]} for i in range(n)]


def faults_path(chunk_path: Path) -> Path:
    """``records/<b>/<k>.faults.json`` beside ``records/<b>/<k>.parquet``."""
    return chunk_path.with_name(chunk_path.stem + FAULTS_SUFFIX)


def write_json(obj: Any, path: Path) -> None:
    """Canonical JSON, atomically (temp file in the same directory, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(obj, sort_keys=True) + "\n")


@dataclass(frozen=True)
class Job:
    chunk: int
    name: str
    index: int  # position of the dialogue in its chunk
    dialogue: dict[str, Any]


class ChunkSink:
    """Collects job results and writes each (chunk, baseline) file once it is complete."""

    def __init__(self, parts: list[list[dict[str, Any]]], targets: dict[tuple[int, str], Path]) -> None:
        self.targets = targets
        self.rows: dict[tuple[int, str], list[Any]] = {key: [None] * len(parts[key[0]]) for key in targets}
        self.faults: dict[tuple[int, str], Counter] = {key: Counter() for key in targets}
        self.missing = {key: len(parts[key[0]]) for key in targets}
        for key, n in self.missing.items():
            if n == 0:
                self._write(key)

    def add(self, job: Job, rows: list[Record], faults: Counter) -> None:
        key = (job.chunk, job.name)
        self.rows[key][job.index] = rows
        self.faults[key].update(faults)
        self.missing[key] -= 1
        if self.missing[key] == 0:
            self._write(key)

    def _write(self, key: tuple[int, str]) -> None:
        path = self.targets[key]
        write_json(dict(sorted(self.faults[key].items())), faults_path(path))
        write_chunk([r for rows in self.rows[key] for r in rows], path)
        del self.rows[key]


def plan(
    parts: list[list[dict[str, Any]]], todo: dict[int, dict[str, str]], names: list[str]
) -> tuple[list[Job], dict[tuple[int, str], Path]]:
    """Jobs in corpus order and the chunk files they complete."""
    jobs: list[Job]
    targets: dict[tuple[int, str], Path]
    jobs, targets = [], {}
    for k in sorted(todo):
        wanted = [n for n in names if n in todo[k]]
        for n in wanted:
            targets[(k, n)] = Path(todo[k][n])
        for i, dialogue in enumerate(parts[k]):
            jobs.extend(Job(k, n, i, dialogue) for n in wanted)
    return jobs, targets


def see_corpus_later(
    baselines: dict[str, Any], kb: KB, corpus: list[dict[str, Any]] | None, pool: str, seed: int
) -> tuple[ThreadPoolExecutor | None, dict[str, Future]]:
    """Hand ``corpus`` (every evaluated dialogue, corpus order) to the baselines with a
    ``see_corpus`` (Memory-Aug.) in a background thread; ``{name: future}`` gates their jobs.
    Embedding the corpus takes minutes at paper scale: the other baselines' jobs run meanwhile."""
    names = [n for n, b in baselines.items() if hasattr(b, "see_corpus")]
    if corpus is None or not names:
        return None, {}

    def see(name: str) -> None:
        show_corpus({name: baselines[name]}, corpus, kb, pool, seed)

    background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="see-corpus")
    return background, {n: background.submit(see, n) for n in names}


def run_jobs(
    baselines: dict[str, Any],
    kb: KB,
    parts: list[list[dict[str, Any]]],
    todo: dict[int, dict[str, str]],
    names: list[str],
    pool: str,
    seed: int,
    clock: Clock,
    concurrency: int,
    guard: Any = None,
    progress: bool = False,
    corpus: list[dict[str, Any]] | None = None,
) -> bool:
    """Run every pending LLM chunk of ``names``; False when ``guard`` stopped the run early.
    With ``corpus``, the ``see_corpus`` baselines see it first (:func:`see_corpus_later`)."""
    jobs, targets = plan(parts, todo, names)
    sink = ChunkSink(parts, targets)
    background, gates = see_corpus_later(baselines, kb, corpus, pool, seed)

    def run(job: Job) -> tuple[list[Record], Counter]:
        if job.name in gates:
            gates[job.name].result()  # the memory is fixed before its first turn (re-raises its error)
        contexts = turn_contexts(job.dialogue, kb, pool, seed)
        with counting_faults() as faults:
            rows = predict_records(job.name, baselines[job.name], contexts, clock)
        return rows, faults

    bar = tqdm(total=len(jobs), desc="LLM dialogues", disable=not progress, unit="dialogue")
    inflight: dict[Future, Job] = {}
    queue, stopped = iter(jobs), False
    nxt = next(queue, None)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm") as executor:
        try:
            while nxt is not None or inflight:
                while nxt is not None and len(inflight) < concurrency and not stopped:
                    verdict = guard.admit(nxt.name) if guard is not None else "go"
                    if verdict == "stop":
                        stopped = True
                    if verdict != "go":
                        break
                    inflight[executor.submit(run, nxt)] = nxt
                    nxt = next(queue, None)
                if stopped and not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: (inflight[f].chunk, inflight[f].index)):
                    job = inflight.pop(future)
                    rows, faults = future.result()
                    if guard is not None:
                        guard.settle(job.name, sum(r["cost_usd"] for r in rows))
                    sink.add(job, rows, faults)
                    bar.update()
        except BaseException:
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            bar.close()
            if background is not None:
                background.shutdown(wait=True)
    return not stopped
