"""Table 16 (Appendix L): grounding score at fuzzy thresholds 70 % / 80 % / 90 % / exact.

GS (``metrics.grounding.grounding_score``) of every baseline at each threshold, exact being
threshold 1.0 (the lower-cased quote occurs in the review), on ``n_dialogues`` dialogues of
each run drawn with ``seed`` (:mod:`.rescore`); the sweep and its rank correlation with the
default come from ``stats.sweeps.fuzzy_threshold_sensitivity``.  The notebook writes the long
reported-vs-reproduced frame to ``tables/t16_fuzzy_threshold.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics.grounding import grounding_score
from trace_crs.report import figures, sensitivity
from trace_crs.stats.sweeps import fuzzy_threshold_sensitivity

NAME = "t16_fuzzy_threshold"  # notebook, module, table CSV and figure stem
PAPER = "table16_fuzzy_threshold"  # the printed table it is compared with (report/paper/)
EXACT = 1.0  # fuzzy threshold of the "exact" column: partial_ratio 100 = verbatim (lower-cased)
COLUMNS = {"70%": 0.70, "80%": 0.80, "90%": 0.90, "Exact": "exact"}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm"),
         n_dialogues: int | None = 300, seed: int = 42) -> pd.DataFrame:
    """Reported vs reproduced Table 16 (long frame, plus ``rank_rho_vs_default``)."""
    inputs = sensitivity.run_inputs(results_dir, runs, n_dialogues, seed)
    turns = pd.concat([i.turns() for i in inputs], ignore_index=True)

    def gs_at(setting: Any) -> pd.DataFrame:
        tau = EXACT if setting == "exact" else float(setting)
        return turns[["baseline"]].assign(gs=grounding_score(list(turns["text"]), list(turns["cited"]), tau))

    sweep = fuzzy_threshold_sensitivity(gs_at, tuple(COLUMNS.values()))
    return sensitivity.published_sweep(PAPER, sweep, COLUMNS, inputs)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """GS per baseline across thresholds (ours solid, printed dashed); ``figures/t16_fuzzy_threshold``."""
    fig = sensitivity.sweep_plot(df)
    figures.save(fig, NAME, figures_dir)
    return fig


facts = sensitivity.sweep_facts
