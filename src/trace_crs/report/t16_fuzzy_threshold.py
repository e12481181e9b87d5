"""Table 16 (Appendix L): grounding score at fuzzy thresholds 70 % / 80 % / 90 % / exact.

GS (``metrics.grounding.grounding_score``) of every baseline at each threshold, exact being
threshold 1.0 (the lower-cased quote occurs in the review), on a seeded sample of each run's
dialogues: computed by ``trace-crs stats sensitivity fuzzy`` (``stats.sensitivity.fuzzy_sweep``,
sample size and seed in ``mk/sensitivity.mk``) into ``sensitivity/t16_fuzzy_threshold.parquet``,
read here and laid beside the printed table.  The notebook writes the long
reported-vs-reproduced frame to ``tables/t16_fuzzy_threshold.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures, sensitivity

NAME = "t16_fuzzy_threshold"  # notebook, module, table CSV and figure stem
PAPER = "table16_fuzzy_threshold"  # the printed table it is compared with (report/paper/)
COLUMNS = {"70%": 0.70, "80%": 0.80, "90%": 0.90, "Exact": "exact"}  # printed column -> setting


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 16 (long frame, plus ``rank_rho_vs_default``)."""
    return sensitivity.published_sweep(PAPER, sensitivity.load_saved(results_dir, NAME, runs), COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """GS per baseline across thresholds (ours solid, printed dashed); ``figures/t16_fuzzy_threshold``."""
    return figures.save(sensitivity.sweep_plot(df), NAME, figures_dir)


facts = sensitivity.sweep_facts
