"""Run records (ARCHITECTURE §4): one row per dialogue × system recommend/compare turn ×
baseline, their atomic chunk files, the consolidated ``records.parquet`` and the per-baseline
``predictions/<baseline>.jsonl`` in the ``score`` format (ARCHITECTURE §5).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypedDict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trace_crs.atomic import write_atomic
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.kb.store import dump_jsonl
from trace_crs.metrics.predictions import Prediction, cited_labels

SCHEMA = pa.schema(
    [
        ("dialogue_id", pa.string()),
        ("turn_id", pa.int64()),
        ("baseline", pa.string()),
        ("pool", pa.string()),
        ("ranked_poi_ids", pa.list_(pa.string())),
        ("text", pa.string()),
        ("citations", pa.string()),
        ("latency_s", pa.float64()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("model", pa.string()),
        ("mode", pa.string()),
        ("fallback", pa.bool_()),
        ("error", pa.string()),
    ]
)
KEYS: tuple[str, ...] = ("dialogue_id", "turn_id", "baseline")


class Record(TypedDict):
    """One row of :data:`SCHEMA` (``citations``: the baseline's citations as a JSON string)."""

    dialogue_id: str
    turn_id: int
    baseline: str
    pool: str
    ranked_poi_ids: list[str]
    text: str
    citations: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    model: str
    mode: str
    fallback: bool
    error: str


def to_record(ctx: TurnContext, baseline: str, out: BaselineOutput, latency_s: float) -> Record:
    """The record of one prediction; ``latency_s`` is used unless the baseline set its own."""
    u = out.usage
    return {
        "dialogue_id": ctx.dialogue_id,
        "turn_id": ctx.turn_id,
        "baseline": baseline,
        "pool": ctx.pool,
        "ranked_poi_ids": [str(p) for p in out.ranked_poi_ids],
        "text": out.text,
        "citations": json.dumps(out.citations, sort_keys=True, ensure_ascii=False),
        "latency_s": float(u.latency_s or latency_s),
        "prompt_tokens": int(u.prompt_tokens),
        "completion_tokens": int(u.completion_tokens),
        "cost_usd": float(u.cost_usd),
        "model": u.model,
        "mode": u.mode,
        "fallback": bool(u.fallback),
        "error": u.error,
    }


def write_table(table: pa.Table, path: Path) -> None:
    """Write Parquet atomically (temp file in the same directory, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_chunk(rows: Sequence[Record], path: Path) -> None:
    """One baseline × chunk file of records (written even when empty: the chunk is done)."""
    write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)


def read_records(paths: Iterable[Path]) -> pa.Table:
    """Concatenate chunk files and sort by ``(dialogue_id, turn_id, baseline)``; duplicate
    keys raise ``ValueError`` naming the key."""
    tables = [pq.read_table(p, schema=SCHEMA) for p in sorted(paths)]
    table = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
    table = table.sort_by([(k, "ascending") for k in KEYS])
    keys = list(zip(*(table.column(k).to_pylist() for k in KEYS), strict=False))
    dupes = [k for a, k in zip(keys, keys[1:], strict=False) if a == k]
    if dupes:
        raise ValueError(f"duplicate record key(s) (dialogue_id, turn_id, baseline): {dupes[:3]}")
    return table


def prediction_rows(table: pa.Table, baseline: str) -> list[Prediction]:
    """Score-format predictions of one baseline, in (dialogue_id, turn_id) order."""
    columns = ["dialogue_id", "turn_id", "ranked_poi_ids", "text", "citations"]
    rows = table.filter(pc.equal(table.column("baseline"), baseline)).select(columns).to_pylist()
    return [
        {
            "dialogue_id": r["dialogue_id"],
            "turn_id": r["turn_id"],
            "ranked_poi_ids": r["ranked_poi_ids"],
            "text": r["text"],
            "citations": cited_labels(json.loads(r["citations"])),
        }
        for r in rows
    ]


def write_predictions(table: pa.Table, baselines: list[str], directory: Path) -> list[Path]:
    """``predictions/<baseline>.jsonl`` for each baseline (canonical JSON lines, atomic)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in baselines:
        path = directory / f"{name}.jsonl"
        dump_jsonl(prediction_rows(table, name), path)
        paths.append(path)
    return paths
