"""Trace: accountable evaluation of tourism conversational recommenders.

The Python API (:mod:`trace_crs.api`): ``trace_crs.score``, ``trace_crs.load_kb``,
``trace_crs.load_dialogues`` and ``trace_crs.evaluate``, imported on first use so that
``import trace_crs`` stays light.

Offline defaults: the compendium runs with no network (README "Offline"), so the package
sets ``LITELLM_LOCAL_MODEL_COST_MAP``, ``HF_HUB_OFFLINE`` and ``TRANSFORMERS_OFFLINE`` here,
before any submodule can import litellm or transformers (litellm otherwise spends ~10 s per
process retrying a download of its cost map). A value the user set explicitly wins.
"""

from __future__ import annotations

import os
from typing import Any

OFFLINE_DEFAULTS = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}
for _key, _value in OFFLINE_DEFAULTS.items():
    os.environ.setdefault(_key, _value)

__version__ = "0.1.0"
DEFAULT_SEED = 42
__all__ = ["DEFAULT_SEED", "OFFLINE_DEFAULTS", "__version__", "evaluate", "load_dialogues", "load_kb", "score"]


def __getattr__(name: str) -> Any:
    if name in ("evaluate", "load_dialogues", "load_kb", "score"):
        from trace_crs import api

        return getattr(api, name)
    raise AttributeError(f"module 'trace_crs' has no attribute {name!r}")
