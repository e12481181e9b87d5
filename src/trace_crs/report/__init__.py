"""Report layer: load results, set them beside the paper's numbers, plot, state findings.

Modules: :mod:`results` (score files -> frames), :mod:`paper` (printed numbers shipped as
package data), :mod:`compare` (baseline labels, reported vs reproduced), :mod:`figures`
(PNG + SVG), :mod:`findings` (one computed sentence per headline finding) and one
``tNN`` module per table family with ``load(results_dir, **params)`` and ``plot(df)``.
"""
from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

import pandas as pd

# Book tables are read whole: never elide columns or rows of a reproduced table.
pd.set_option("display.max_columns", None)
pd.set_option("display.max_rows", 200)
pd.set_option("display.width", 200)
# The book shows no progress bars: sentence-transformers imports tqdm.auto (which warns in a kernel
# without ipywidgets) and transformers draws a "Loading weights" bar; both would land on the page.
warnings.filterwarnings("ignore", message="IProgress not found")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

MODULES = ("results", "paper", "compare", "figures", "prose", "findings", "provenance",
           "t03", "t05", "t06", "t09", "t16", "t21", "t24", "t25", "t26", "t27", "t29", "f02", "f06",
           "oracle_knapsack", "rescore", "deviations", "live_vs_replayed", "core_judge", "travelbench_abstention")


def __getattr__(name: str) -> ModuleType:
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(MODULES)
