"""Table 18 (Appendix L): spatial coherence at 1 / 1.5 / 2 / 3 / 5 km.

Every run re-scored (``metrics.score.score_predictions``) with ``spatial_km`` on a seeded
sample of its dialogues by ``trace-crs stats sensitivity spatial``
(``stats.sensitivity.spatial_sweep``, sample size and seed in ``mk/sensitivity.mk``) into
``sensitivity/t18_spatial_threshold.parquet``; the sweep and its rank correlation with the 2 km
default come from ``stats.sweeps.spatial_threshold_sensitivity``.
The notebook writes the long reported-vs-reproduced frame to ``tables/t18_spatial_threshold.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures, sensitivity

NAME = "t18_spatial_threshold"  # notebook, module, table CSV and figure stem
PAPER = "table18_spatial_threshold"  # the printed table it is compared with (report/paper/)
COLUMNS = {"1km": 1.0, "1.5km": 1.5, "2km": 2.0, "3km": 3.0, "5km": 5.0}  # printed column -> km


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 18 (long frame, plus ``rank_rho_vs_default``)."""
    return sensitivity.published_sweep(PAPER, sensitivity.load_saved(results_dir, NAME, runs), COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Spatial coherence per baseline across distances; ``figures/t18_spatial_threshold``."""
    return figures.save(sensitivity.sweep_plot(df), NAME, figures_dir)


facts = sensitivity.sweep_facts
