"""Table 22 (Appendix L). CGS vs entailment-gated CGS: GS, entailment, CD, PC, CGS and CGS_ent of each run.

From the runs' score files (aggregates), beside the printed table; :func:`intervals` gives the
LLM rows' dialogue-cluster bootstrap intervals from the per-turn frames.  The notebook writes the
long reported-vs-reproduced frame to ``tables/t22_cgs_variants.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, sensitivity
from trace_crs.stats.intervals import Derived, turn_mean

NAME = "t22_cgs_variants"  # notebook, module, table CSV and figure stem
PAPER = "table22_cgs_variants"  # the printed table it is compared with (report/paper/)
COLUMNS = metric_registry.columns(("gs", "entailment", "cd", "pc", "cgs", "cgs_ent"), paper.header(PAPER))
# The same numbers as statistics of a per-turn frame (the aggregates are means over turns).
CI_COLUMNS = {col: Derived(turn_mean(metric), needs=(metric,)) for col, metric in COLUMNS.items()}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 22."""
    return sensitivity.aggregates_vs_paper(results_dir, runs, PAPER, COLUMNS)


intervals = compare.intervals_for(CI_COLUMNS, "each a mean over turns")


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t22_cgs_variants``."""
    return figures.save(compare.plot(df, "Table 22: this run vs paper"), NAME, figures_dir)


facts = sensitivity.comparison_facts
