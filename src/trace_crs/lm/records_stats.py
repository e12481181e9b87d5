"""What a records directory holds (``trace-crs lm records stats`` / ``manifest``;
:mod:`trace_crs.lm.records`; whether the records still hold: :mod:`trace_crs.lm.records_verify`).

* :func:`records_stats` counts the records in the shards themselves (not the manifest): records
  per model and step, distinct keys, duplicates (the same key recorded by two processes that ran
  at once: the oldest is the one replayed), records whose usage was not measured (``measured:
  false``, :mod:`trace_crs.lm.records`), shards and bytes, and the shards not closed
  (:func:`~trace_crs.lm.records_shards.shard_state`: ``writing`` — still growing, commit it
  once its writer ends — or ``cut`` — its writer was killed; it is read up to its last record).
* :func:`rebuild_manifest` rewrites ``MANIFEST.json`` from the shards themselves.
* :func:`context_needed` sizes the KV context the records need (``verify`` sets the server's).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from trace_crs.lm.records import iter_records, iter_records_of
from trace_crs.lm.records_shards import shard_paths, shard_state, update_manifest


def records_stats(directory: str | Path) -> dict[str, Any]:
    """Counts of ``directory``'s records, read from its shards (module docstring)."""
    shards = shard_paths(directory)
    counts: dict[str, dict[str, int]] = {}
    seen: set[str] = set()
    records = duplicates = unmeasured = 0
    for record in iter_records(directory):
        records += 1
        unmeasured += record.get("measured") is False
        if record["key"] in seen:
            duplicates += 1
            continue
        seen.add(record["key"])
        per_model = counts.setdefault(str(record.get("model")), {})
        step = str(record.get("step"))
        per_model[step] = per_model.get(step, 0) + 1
    return {
        "directory": str(directory),
        "records": records,
        "distinct": len(seen),
        "duplicates": duplicates,
        "unmeasured": unmeasured,
        "shards": len(shards),
        "bytes": sum(p.stat().st_size for p in shards),
        "largest_shard_bytes": max((p.stat().st_size for p in shards), default=0),
        "unclosed_shards": {p.name: state for p in shards if (state := shard_state(p)) != "closed"},
        "per_model": {m: dict(sorted(s.items())) for m, s in sorted(counts.items())},
    }


def rebuild_manifest(directory: str | Path) -> dict[str, Any]:
    """Rewrite ``directory``'s manifest from its shards (every record counted, entries of shards
    no longer there dropped); returns it."""
    entries: dict[str, dict[str, Any]] = {}
    for path in shard_paths(directory):
        counts: dict[str, dict[str, int]] = {}
        commits: Counter[str] = Counter()
        dates = []
        for record in iter_records_of(path):
            per_step = counts.setdefault(str(record.get("step")), {})
            per_step[str(record.get("model"))] = per_step.get(str(record.get("model")), 0) + 1
            commits[str(record.get("commit"))] += 1
            dates.append(str(record.get("date") or ""))
        entries[path.name] = {
            "records": len(dates),
            "bytes": path.stat().st_size,
            "counts": {step: dict(sorted(m.items())) for step, m in sorted(counts.items())},
            "commit": commits.most_common(1)[0][0] if commits else None,
            "first": min(dates, default=""),
            "last": max(dates, default=""),
        }
    return update_manifest(directory, entries, replace=True)


def context_needed(directory: str | Path) -> int:
    """The KV context every record of ``directory`` fits in: the largest recorded prompt plus its
    ``max_tokens`` (or its completion), rounded up to a power of two (the sizes contexts are set
    in: ``lm.n_ctx`` 4,096, the judge's 8,192) — the server's context is a server setting, not part
    of a recorded request, so ``verify`` must size it from the records."""
    need = 0
    for record in iter_records(directory):
        usage, request = record.get("usage") or {}, record.get("request") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        reply = max(int(request.get("max_tokens") or 0), int(usage.get("completion_tokens") or 0))
        need = max(need, prompt + reply)
    return 1 << max(need - 1, 0).bit_length()
