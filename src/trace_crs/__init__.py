"""Trace: accountable evaluation of tourism conversational recommenders.

The Python API (:mod:`trace_crs.api`): ``trace_crs.score``, ``trace_crs.load_kb``,
``trace_crs.load_dialogues`` and ``trace_crs.evaluate``, imported on first use so that
``import trace_crs`` stays light.
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
DEFAULT_SEED = 42
__all__ = ["DEFAULT_SEED", "__version__", "evaluate", "load_dialogues", "load_kb", "score"]


def __getattr__(name: str) -> Any:
    if name in ("evaluate", "load_dialogues", "load_kb", "score"):
        from trace_crs import api
        return getattr(api, name)
    raise AttributeError(f"module 'trace_crs' has no attribute {name!r}")
