"""Report layer: load results, set them beside the paper's numbers, plot, state findings.

Modules: :mod:`results` (score files -> frames), :mod:`paper` (printed numbers shipped as
package data), :mod:`compare` (baseline labels, reported vs reproduced), :mod:`figures`
(PNG + SVG), :mod:`findings` (one computed sentence per headline finding), :mod:`sensitivity`
(shared layout of the Appendix L sweeps) and one module per paper artifact, named like its
notebook and table CSV, with ``load(results_dir, **params)`` (reads results, returns a frame,
writes nothing), ``plot(df)`` and ``facts(df)``; the notebook writes the CSV
(``results.write_table(df, results_dir, module.NAME)``).
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

# Helpers, then one module per book page / paper artifact, named like its notebook and its
# table CSV (``report.t05_headline`` ↔ ``notebooks/t05_headline.py`` ↔ ``tables/t05_headline.csv``).
HELPERS = (
    "results",
    "paper",
    "compare",
    "figures",
    "prose",
    "findings",
    "provenance",
    "build_time",
    "llm_calls",
    "sensitivity",
    "numbering",
    "bench_table",
    "t03_corpus",
)
ARTIFACTS = (
    "f01_overview",
    "t01_benchmarks",
    "t02_gap_map",
    "t03_dataset",
    "t04_release",
    "f03_pipeline",
    "t07_metrics",
    "t08_baselines",
    "t05_headline",
    "t06_per_axis",
    "f02_gap",
    "t09_practical",
    "t16_fuzzy_threshold",
    "t17_entailment_vs_fuzzy",
    "t18_spatial_threshold",
    "t19_antigaming",
    "t20_spreads",
    "t21_bootstrap",
    "t22_cgs_variants",
    "cgs_formula_variants",
    "grounding_independence",
    "nli_threshold",
    "nli_bimodality",
    "t23_difficulty",
    "t24_pool_size",
    "t25_open_set",
    "t26_test_split",
    "t27_multi_reference",
    "t29",
    "core_judge",
    "f06_error_analysis",
    "oracle_knapsack",
    "live_vs_replayed",
    "travelbench_abstention",
    "t28_cross_judge",
    "deviations",
    "diagnosis",
    "human_eval",
    "performance",
)
MODULES = HELPERS + ARTIFACTS


def __getattr__(name: str) -> ModuleType:
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(MODULES)
