"""``trace-crs evaluate``: replay reference dialogues through baselines, resumably
(ARCHITECTURE §4).

Layout of ``out/``: ``config.yaml`` (resolved), ``records/<baseline>/<chunk>.parquet`` (atomic
chunk files — a present file is a finished chunk, so a killed run resumes where it stopped),
``records.parquet`` (all chunks, sorted by dialogue_id, turn_id, baseline), ``predictions/
<baseline>.jsonl`` and ``MANIFEST.json`` (SHA256 of inputs and outputs, record and fallback
counts, endpoint faults), consolidated as one commit with the manifest last
(:func:`trace_crs.atomic.commit_files`; a killed consolidation is rolled forward by the next
run).  Non-LLM baselines run over chunks in ``workers`` spawned processes;
LLM baselines run ``concurrency`` dialogues at a time (:mod:`trace_crs.runner.llm_pool`), in
this process or, for an API model, in ``workers`` processes (:mod:`trace_crs.runner.llm_exec`),
under an optional cost budget (``max_cost_usd``, :mod:`trace_crs.runner.budget`).
Re-running with a different resolved config into the same directory is refused; the
execution settings (:data:`EXECUTION_KEYS`) never change a record and may differ between
invocations, so they are not part of ``config.yaml``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml
from tqdm import tqdm

from trace_crs import results_layout as layout
from trace_crs.atomic import commit_files, recover, write_text
from trace_crs.baselines import registry
from trace_crs.baselines.registry import baseline_class
from trace_crs.cache import CACHE_ENV
from trace_crs.config import ScoreConfig
from trace_crs.errors import UsageError
from trace_crs.kb import load_kb
from trace_crs.kb.store import POIS_FILE, REVIEWS_FILE, sha256_file
from trace_crs.runner.execute import (
    Clock,
    build_baselines,
    fill_caches,
    init_worker,
    run_chunk,
    show_corpus,
    worker_task,
)
from trace_crs.runner.llm_exec import Work, run_llm
from trace_crs.runner.llm_pool import FAULTS_SUFFIX
from trace_crs.runner.records import prediction_rows, read_records, write_predictions
from trace_crs.runner.selection import Rules, Selection, uses_llm
from trace_crs.runner.tasks import chunks, load_evaluated


@dataclass(frozen=True)
class RunConfig(Selection):
    """What ``trace-crs evaluate`` runs (:class:`~trace_crs.runner.selection.Selection`) and how."""

    chunk_size: int = 50
    concurrency: int | None = None  # LLM dialogues in flight; None/0 = auto (runner.llm_pool)
    max_cost_usd: float | None = None  # run-wide LM budget (runner.budget); None = unlimited
    executor: str = "local"  # "local" | "ray" (runner.ray_exec)
    ray_address: str | None = None  # Ray cluster (else $RAY_ADDRESS, else a local cluster)

    def __post_init__(self) -> None:
        """Every value is checked before anything is written (a bad ``--set`` leaves no config.yaml)."""
        self.check("run config")

    def rules(self) -> Rules:
        return {
            **super().rules(),
            "chunk_size": (self.chunk_size >= 1, ">= 1"),
            "concurrency": (self.concurrency is None or self.concurrency >= 0, ">= 1 (0 or unset: auto)"),
            "max_cost_usd": (self.max_cost_usd is None or self.max_cost_usd >= 0, ">= 0 (or unset: no budget)"),
            "executor": (self.executor in ("local", "ray"), "local or ray"),
        }


EXECUTION_KEYS: tuple[str, ...] = ("concurrency", "max_cost_usd", "executor", "ray_address")


def resolved_config(cfg: RunConfig) -> dict[str, Any]:
    """The config as written to ``config.yaml``: names resolved, inputs identified by SHA256."""
    return cfg.resolved(uses_llm, "run config lm", exclude=EXECUTION_KEYS)


def _claim(out: Path, resolved: dict[str, Any]) -> None:
    """Write ``config.yaml``, or check that an existing one describes the same run."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / layout.RUN_CONFIG
    text = yaml.safe_dump(resolved, sort_keys=True)
    if path.exists():
        old = yaml.safe_load(path.read_text())
        keys = (set(old) | set(resolved)) - {"kb", "dialogues"}
        differ = sorted(k for k in keys if old.get(k) != resolved.get(k))
        if differ:  # *_sha256 keys: an input file changed since the run began
            raise UsageError(
                f"{path}: an existing run with a different configuration or inputs "
                f"({', '.join(differ)}); use another --out"
            )
    write_text(path, text)


def _pending(out: Path, names: list[str], n_chunks: int) -> dict[int, dict[str, str]]:
    """``{chunk: {baseline: path}}`` of chunk files not yet written."""
    todo: dict[int, dict[str, str]] = {}
    for name in names:
        for k in range(n_chunks):
            path = out / "records" / name / f"{k:05d}.parquet"
            if not path.exists():
                todo.setdefault(k, {})[name] = str(path)
    return todo


def _run_non_llm(cfg: RunConfig, kb, parts, todo, names, workers, clock, progress) -> None:
    tasks = [(parts[k], {n: p for n, p in todo[k].items() if n in names}) for k in sorted(todo)]
    tasks = [t for t in tasks if t[1]]
    if not tasks:
        return
    bar = tqdm(total=len(tasks), desc="non-LLM chunks", disable=not progress, unit="chunk")
    corpus = [d for part in parts for d in part]
    if workers <= 1:
        baselines = build_baselines(names, kb)
        show_corpus(baselines, corpus, kb, cfg.pool, cfg.seed)
        for dialogues, targets in tasks:
            run_chunk(baselines, kb, dialogues, cfg.pool, cfg.seed, {n: Path(p) for n, p in targets.items()}, clock)
            bar.update()
    else:
        spawn = mp.get_context("spawn")
        with spawn.Pool(1) as prep:  # on-disk caches filled once before the workers start, in a child
            prep.apply(fill_caches, (cfg.kb, names))  # so the parent never holds the encoder (~0.5 GB)
        fitted = build_baselines([n for n in names if hasattr(baseline_class(n), "see_corpus")], kb)
        show_corpus(fitted, corpus, kb, cfg.pool, cfg.seed)
        with spawn.Pool(workers, init_worker, (cfg.kb, names, cfg.pool, cfg.seed, fitted)) as pool:
            for _ in pool.imap_unordered(worker_task, tasks):
                bar.update()
    bar.close()


def evaluate(
    cfg: RunConfig,
    out: str | Path,
    workers: int = 2,
    clock: Clock = time.perf_counter,
    progress: bool = True,
    cache_dir: str | Path | None = None,
    score: ScoreConfig | None = None,
) -> dict[str, Any]:
    """Run (or resume) one evaluation into ``out``; returns the manifest.  ``score`` (its pool
    must be the run's) also writes ``scores/<baseline>.json`` with those settings.
    When the cost guard stops the run, nothing is consolidated and the returned report says
    ``complete: False``, what was spent and how many chunk files are pending."""
    if cache_dir is None:
        return _evaluate(cfg, Path(out), workers, clock, progress, score)
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(cache_dir)  # the spawned workers inherit it
    try:
        return _evaluate(cfg, Path(out), workers, clock, progress, score)
    finally:  # an API call leaves the caller's environment as it found it
        os.environ.pop(CACHE_ENV) if before is None else os.environ.__setitem__(CACHE_ENV, before)


def _evaluate(
    cfg: RunConfig, out: Path, workers: int, clock: Clock, progress: bool, score: ScoreConfig | None
) -> dict[str, Any]:
    if score is not None and score.pool != cfg.pool:
        raise UsageError(f"score pool '{score.pool}' is not the run's pool '{cfg.pool}'")
    resolved = resolved_config(cfg)
    names = resolved["baselines"]
    if cfg.executor == "ray":
        from trace_crs.runner.ray_exec import check_ray

        check_ray(cfg)
    kb = load_kb(cfg.kb)
    dialogues = load_evaluated(cfg.dialogues, cfg.subset, cfg.seed)
    recover(out / "MANIFEST.json")  # completes the consolidation a killed run had committed
    _claim(out, resolved)
    parts = chunks(dialogues, cfg.chunk_size)
    todo = _pending(out, names, len(parts))
    if cfg.executor == "ray" and todo:
        from trace_crs.runner.llm_pool import auto_concurrency
        from trace_crs.runner.ray_exec import run_on_ray

        run_on_ray(cfg, todo, names, resolved["lm"], workers, auto_concurrency(cfg.concurrency, resolved["lm"]))
        todo = {}
    _run_non_llm(cfg, kb, parts, todo, [n for n in names if not registry.uses_llm(n)], workers, clock, progress)
    llm = [n for n in names if registry.uses_llm(n)]
    if llm and any(n in t for t in todo.values() for n in llm):
        guard = run_llm(Work(cfg, kb, dialogues, parts, todo, llm, clock, progress), out, resolved["lm"], workers)
        if guard is not None and guard.stopped:
            left = _pending(out, names, len(parts))
            return {
                "complete": False,
                "stopped": "max_cost_usd",
                "max_cost_usd": cfg.max_cost_usd,
                "spent_usd": round(guard.spent, 6),
                "pending_chunks": sum(len(t) for t in left.values()),
            }
    table = read_records(p for n in names for p in (out / "records" / n).glob("*.parquet"))
    extra = score_writers(out, table, names, kb, dialogues, cfg.dialogues, score) if score else {}
    return finalize(out, names, resolved, cfg, [d["dialogue_id"] for d in dialogues], table, extra)


def score_writers(
    out: Path, table, names: list[str], kb, dialogues: list[dict], corpus_path: str, score: ScoreConfig
) -> dict:
    """``{scores/<b>.json: writer}``: the run's own aggregates with the settings ``score``, from
    its records (not its prediction files): ``trace-crs score`` with the same settings on
    ``predictions/<b>.jsonl`` and ``--dialogue-ids dialogue_ids.json`` must agree (both go
    through :func:`trace_crs.metrics.backed.score_with_backends`)."""
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.metrics.backed import score_with_backends
    from trace_crs.metrics.predictions import index_predictions

    corpus, texts = load_dialogues(corpus_path), {}
    for name in names:
        source = f"{out}/records.parquet:{name}"
        rows = ((source, p) for p in prediction_rows(table, name))  # what predictions/<name>.jsonl holds
        preds = index_predictions(rows, dialogues, kb, pool=score.pool)
        scores = score_with_backends(kb, corpus, dialogues, preds, score)
        texts[name] = json.dumps(scores.aggregate, indent=2, sort_keys=True, allow_nan=False) + "\n"
    return {out / layout.SCORES: lambda t: [write_text(t / f"{n}.json", x) for n, x in texts.items()]}


def finalize(
    out: Path,
    names: list[str],
    resolved: dict[str, Any],
    cfg: RunConfig,
    dialogue_ids: list[str],
    table,
    extra: dict | None = None,
) -> dict[str, Any]:
    """Consolidate the chunk records ``table`` into ``records.parquet``, predictions,
    ``dialogue_ids.json`` (the evaluated dialogues: a seeded subset is scored on exactly
    these), the ``extra`` writers (scores) and ``MANIFEST.json``, as one commit with the
    manifest as its marker (:func:`trace_crs.atomic.commit_files`): a run killed anywhere
    has either its previous complete outputs or the new ones."""
    written: dict[Path, Path] = {}  # output -> the temporary it was written to

    def put(path: Path, write) -> tuple[Path, Any]:
        def w(tmp: Path) -> None:
            write(tmp)
            written[path] = tmp

        return path, w

    writers = dict(
        [
            put(out / layout.DIALOGUE_IDS, lambda t: write_text(t, json.dumps(sorted(dialogue_ids)) + "\n")),
            put(out / layout.RECORDS, lambda t: pq.write_table(table, t, compression="zstd")),
            put(out / layout.PREDICTIONS, lambda t: write_predictions(table, names, t)),
            *(extra or {}).items(),
        ]
    )
    counts, faults = {}, {}
    for name in names:
        total: Counter = Counter()
        for path in sorted((out / "records" / name).glob(f"*{FAULTS_SUFFIX}")):
            total.update(json.loads(path.read_text()))
        faults[name] = dict(sorted(total.items()))
        mask = pc.equal(table.column("baseline"), name)
        sub = table.filter(mask)
        counts[name] = {"records": sub.num_rows, "fallbacks": int(pc.sum(sub.column("fallback")).as_py() or 0)}
    manifest: dict[str, Any] = {
        "inputs": {
            f"kb/{POIS_FILE}": resolved["kb_sha256"],
            f"kb/{REVIEWS_FILE}": sha256_file(Path(cfg.kb) / REVIEWS_FILE),
            "dialogues": resolved["dialogues_sha256"],
        },
        "counts": counts,
        "n_records": table.num_rows,
        "complete": True,
        "faults": faults,  # endpoint faults met by the LM calls of the finished chunks (lm.faults)
    }

    def write_manifest(tmp: Path) -> None:  # written last: hashes what the others wrote
        hashes = {"config.yaml": sha256_file(out / layout.RUN_CONFIG)}
        hashes |= {"dialogue_ids.json": sha256_file(written[out / layout.DIALOGUE_IDS])}
        hashes |= {"records.parquet": sha256_file(written[out / layout.RECORDS])}
        hashes |= {
            f"predictions/{n}.jsonl": sha256_file(written[out / layout.PREDICTIONS] / f"{n}.jsonl") for n in names
        }
        manifest["outputs"] = hashes
        write_text(tmp, json.dumps(manifest, sort_keys=True, indent=2) + "\n")

    commit_files({**writers, out / layout.RUN_MANIFEST: write_manifest}, marker=out / layout.RUN_MANIFEST)
    return manifest
