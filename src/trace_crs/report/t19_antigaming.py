"""Table 19 (Appendix L): anti-gaming — does citing more buy grounding?

Per baseline, Pearson r of citation density (CD) vs grounding score (GS) over its turns, with
the means (``stats.checks.anti_gaming``), beside the printed table; :func:`intervals` bootstraps the same three numbers of the LLM rows
over dialogues.  The notebook writes the long reported-vs-reproduced frame to
``tables/t19_antigaming.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results, sensitivity
from trace_crs.stats.checks import anti_gaming
from trace_crs.stats.intervals import Derived

NAME = "t19_antigaming"  # notebook, module, table CSV and figure stem
PAPER = "table19_antigaming"  # the printed table it is compared with (report/paper/)
COLUMNS = {
    "n_turns": "n_turns",
    "MeanCD": "mean_cd",
    "MeanGS": "mean_gs",
    "Pearson_r": "pearson_r",
    "p_value": "p_value",
}


def _anti_gaming(field: str) -> Derived:
    """One field of :func:`anti_gaming` on a (resampled) baseline's turns."""
    return Derived(lambda f: float(anti_gaming(f)[field].iloc[0]), needs=("cd", "gs"))


CI_COLUMNS = {col: _anti_gaming(COLUMNS[col]) for col in ("MeanCD", "MeanGS", "Pearson_r")}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 19."""
    turns = results.load_per_turn(results_dir, runs)
    ours = anti_gaming(turns).set_index("baseline")
    ours["run"] = turns.drop_duplicates("baseline").set_index("baseline")["run"]
    why = {k: w for k, w in ours.pop("undefined").items() if w}
    ours.attrs[results.UNDEFINED] = {"pearson_r": why, "p_value": why}
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


intervals = compare.intervals_for(CI_COLUMNS, "Pearson r over the resampled dialogues' turns")


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t19_antigaming``."""
    return figures.save(compare.plot(df, "Table 19: this run vs paper"), NAME, figures_dir)


facts = sensitivity.comparison_facts
