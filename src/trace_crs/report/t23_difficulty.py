"""Table 23 (Appendix L): R@1 by generation-time difficulty tier.

Per-turn R@1 of the closed runs averaged within each difficulty tier (turn metrics are means
over turns, §5); :func:`intervals` bootstraps each LLM tier mean over that tier's dialogues.
The notebook writes the long reported-vs-reproduced frame to ``tables/t23_difficulty.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results
from trace_crs.stats.intervals import Derived, turn_mean

NAME = "t23_difficulty"  # notebook, module, table CSV and figure stem
PAPER = "table23_difficulty"  # the printed table it is compared with (report/paper/)
TIERS = ("easy", "medium", "hard", "expert")
COLUMNS = {f"{tier.capitalize()}_R@1": f"recall@1_{tier}" for tier in TIERS}


def _tier(tier: str) -> Derived:
    """Mean R@1 over the turns of one tier (the dialogues of that tier are the clusters)."""
    return Derived(turn_mean("recall@1"), rows=lambda f: f["difficulty"] == tier, needs=("recall@1", "difficulty"))


CI_COLUMNS = {col: _tier(tier) for col, tier in zip(COLUMNS, TIERS, strict=False)}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 23."""
    turns = results.load_per_turn(results_dir, runs)
    ours = turns.pivot_table(index="baseline", columns="difficulty", values="recall@1", aggfunc="mean").add_prefix(
        "recall@1_"
    )
    ours["n_turns"] = turns.groupby("baseline").size()
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


intervals = compare.intervals_for(CI_COLUMNS, "mean R@1 over the tier's turns")


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t23_difficulty``."""
    return figures.save(compare.plot(df, "Table 23: this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Mean R@1 over baselines in the easiest and the hardest tier, and the drop between them."""
    return compare.mean_drop(df, next(iter(COLUMNS)), list(COLUMNS)[-1])
