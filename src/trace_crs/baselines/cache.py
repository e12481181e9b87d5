"""Shared work cached across baselines (issue 4 item 5): per-process memo tables keyed by KB
identity, and the on-disk cache directory for artefacts that outlive a process (POI
embeddings).

``kb_key(kb)`` is the POI-file SHA256 from the KB manifest (or the object id for an unwritten,
in-memory KB), so two runs on the same KB share disk caches and a changed KB never hits a
stale entry.  The disk cache lives in ``$TRACE_CACHE_DIR`` (default ``.cache/trace_crs`` under
the working directory); the runner points it at its run's cache.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trace_crs.kb import KB

_MEMO: dict[tuple[str, str], dict[Any, Any]] = {}
CACHE_ENV = "TRACE_CACHE_DIR"


def kb_key(kb: KB) -> str:
    """Identity of a KB for caches."""
    return kb.sha256 or f"id{id(kb)}"


def memo(kb: KB, table: str) -> dict[Any, Any]:
    """The per-process dict named ``table`` for this KB (created empty on first use)."""
    return _MEMO.setdefault((kb_key(kb), table), {})


def disk_cache_dir() -> Path:
    """Directory for on-disk caches (created on demand)."""
    path = Path(os.environ.get(CACHE_ENV) or Path.cwd() / ".cache" / "trace_crs")
    path.mkdir(parents=True, exist_ok=True)
    return path
