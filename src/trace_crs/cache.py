"""Shared work cached across baselines and scorers: per-process memo tables keyed by KB
identity, and the on-disk cache directory for artefacts that outlive a process (POI
embeddings).

Per-turn results that several baselines compute from the same inputs (TF-IDF scores, stated
preferences, the spatial anchor) go through :func:`memo_call`, a memo table bounded to
``MEMO_CAP`` entries: the runner evaluates every baseline over one chunk of dialogues in turn,
so a bounded table keeps each turn's result for the next baseline without growing with the
corpus.  Memoised values are pure functions of their key, so a hit never changes an output.

``kb_key(kb)`` is the POI-file SHA256 from the KB manifest (or the object id for an unwritten,
in-memory KB), so two runs on the same KB share disk caches and a changed KB never hits a
stale entry.  The disk cache lives in ``$TRACE_CACHE_DIR`` (default ``~/.cache/trace-crs/vectors``,
beside the LM cache and outside the work tree: every entry is keyed by content, so a fresh
clone on the same machine reuses it); the runner points it at its run's cache.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

from trace_crs.errors import UsageError
from trace_crs.kb import KB

_MEMO: dict[tuple[str, str], dict[Any, Any]] = {}
CACHE_ENV = "TRACE_CACHE_DIR"
MEMO_CAP = 4096
_MISSING = object()
T = TypeVar("T")


def kb_key(kb: KB) -> str:
    """Identity of a KB for caches."""
    return kb.sha256 or f"id{id(kb)}"


def memo(kb: KB, table: str) -> dict[Any, Any]:
    """The per-process dict named ``table`` for this KB (created empty on first use)."""
    return _MEMO.setdefault((kb_key(kb), table), {})


def memo_call(kb: KB, table: str, key: Hashable, compute: Callable[[], T], cap: int = MEMO_CAP) -> T:
    """``compute()`` memoised under ``key`` in the bounded table ``table`` of this KB (the
    table is emptied when it reaches ``cap`` entries)."""
    cache = memo(kb, table)
    value = cache.get(key, _MISSING)
    if value is _MISSING:  # read once: another thread may clear the table between two reads
        if len(cache) >= cap:
            cache.clear()
        value = cache[key] = compute()
    return value


def disk_cache_dir() -> Path:
    """Directory for on-disk caches (created on demand)."""
    path = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "trace-crs" / "vectors")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # an unwritable HOME or cache directory is a usage error (exit 2)
        raise UsageError(
            f"cache directory {path} (set {CACHE_ENV} or --cache-dir to a writable "
            f"directory): {exc.strerror or exc}"
        ) from None
    return path
