"""``trace-crs evaluate --estimate [K]``: projected LM calls, tokens, dollars and wall time of a
run, from K measured dialogues (ARCHITECTURE §4 ``--estimate K``), before anything large runs.

The first ``K`` evaluated dialogues (corpus order) go through each LLM baseline of the config,
one baseline at a time, into a temporary run directory; what they cost is scaled by
``N / K`` for the run's ``N`` dialogues:

* calls (LM calls, an in-run cache hit included), requests (distinct requests: what goes to
  the model from an empty cache), prompt / completion tokens and dollars as the records count
  them (every call, as if nothing were cached: an upper bound of the bill; the price is DSPy's
  estimate for the model, 0 for a model without a known price) — measured sums × ``N / K``;
* model seconds: the seconds the model took for the distinct requests (as measured when each
  answer was first made, also for answers replayed from the LM cache) × ``N / K``;
* wall time at concurrency ``c``: model seconds / ``c`` — a lower bound that assumes the
  endpoint serves ``c`` requests at once and ignores rate limits and client CPU (``c`` = the
  config's concurrency, auto as in :func:`trace_crs.runner.llm_pool.auto_concurrency`).

The sample's answers stay in the LM cache, so the real run replays them.  Non-LLM baselines
are not estimated (they run in minutes at paper scale).
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from trace_crs import results_layout as layout
from trace_crs.baselines.registry import uses_llm
from trace_crs.kb.store import dump_jsonl
from trace_crs.lm.usage import distinct_requests, process_usage
from trace_crs.runner.llm_pool import auto_concurrency
from trace_crs.runner.run import RunConfig, evaluate, resolved_config
from trace_crs.runner.tasks import load_evaluated


def _sum(table: Any, column: str) -> float:
    return float(pc.sum(table.column(column)).as_py() or 0) if table.num_rows else 0.0


def estimate(cfg: RunConfig, sample: int = 4) -> dict[str, Any]:
    """Measure ``sample`` dialogues per LLM baseline and project the whole run (module docstring)."""
    if sample < 1:
        raise ValueError(f"--estimate: the sample must be >= 1 dialogue, got {sample}")
    resolved = resolved_config(cfg)
    llm = [n for n in resolved["baselines"] if uses_llm(n)]
    if not llm:
        raise ValueError("--estimate: the config has no LLM baseline to estimate")
    dialogues = load_evaluated(cfg.dialogues, cfg.subset, cfg.seed)
    picked = dialogues[:sample]
    scale = len(dialogues) / len(picked)
    concurrency = auto_concurrency(cfg.concurrency, resolved["lm"])
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="trace-estimate-") as tmp:
        path = Path(tmp) / "sample.jsonl"
        dump_jsonl(picked, path)
        for name in llm:
            run = dataclasses.replace(
                cfg,
                dialogues=str(path),
                subset=None,
                baselines=name,
                max_cost_usd=None,
                executor="local",
                chunk_size=len(picked),
            )
            before, start = process_usage(), time.perf_counter()
            with distinct_requests() as distinct:
                evaluate(run, Path(tmp) / name, workers=1, progress=False)
            wall, after = time.perf_counter() - start, process_usage()
            table = pq.read_table(Path(tmp) / name / layout.RECORDS)
            rows[name] = {
                "turns": table.num_rows,
                "calls": after.calls - before.calls,
                "requests": distinct.calls,
                "prompt_tokens": _sum(table, "prompt_tokens"),
                "completion_tokens": _sum(table, "completion_tokens"),
                "cost_usd": _sum(table, "cost_usd"),
                "model_s": distinct.model_s,
                "sample_wall_s": wall,
            }
    keys = ("turns", "calls", "requests", "prompt_tokens", "completion_tokens", "cost_usd", "model_s")
    projected = {n: {k: round(r[k] * scale, 6) for k in keys} for n, r in rows.items()}
    total = {k: sum(p[k] for p in projected.values()) for k in keys}
    return {
        "dialogues": len(dialogues),
        "sample_dialogues": len(picked),
        "model": resolved["lm"]["model"],
        "concurrency": concurrency,
        "sample": rows,
        "projected": projected,
        "total": {
            **{k: round(v, 6) for k, v in total.items()},
            "wall_s_serial": round(total["model_s"], 1),
            "wall_s_at_concurrency": round(total["model_s"] / concurrency, 1),
        },
    }
