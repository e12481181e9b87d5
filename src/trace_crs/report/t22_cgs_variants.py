"""Table 22 (Appendix L). CGS vs entailment-gated CGS: GS, entailment, CD, PC, CGS and CGS_ent of each run.

From the runs' score files (aggregates; Gap = GS − Entail), beside the printed table.  The
notebook writes the long reported-vs-reproduced frame to ``tables/t22_cgs_variants.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, sensitivity

NAME = "t22_cgs_variants"  # notebook, module, table CSV and figure stem
PAPER = "table22_cgs_variants"  # the printed table it is compared with (report/paper/)
COLUMNS = {"GS": "gs", "Entail": "entailment", "CD": "cd", "PC": "pc", "CGS": "cgs", "CGSent": "cgs_ent"}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 22."""
    return sensitivity.aggregates_vs_paper(results_dir, runs, PAPER, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t22_cgs_variants``."""
    return figures.save(compare.plot(df, "Table 22: this run vs paper"), NAME, figures_dir)


facts = sensitivity.comparison_facts
