"""Table 26 (Appendix R): the closed-set non-LLM run re-aggregated on the official test split.

Per-turn scores of ``run`` joined with each dialogue's split, read from the corpus's split id
lists (``<corpus stem>.splits/``, :func:`trace_crs.dialogues.splits.read_split_ids`);
turn metrics are means over the test-split turns (§5).  The notebook writes it to
``tables/t26_test_split.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.dialogues.splits import read_split_ids
from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results

NAME = "t26_test_split"  # notebook, module, table CSV and figure stem
PAPER = "table26_test_split"  # the printed table it is compared with (report/paper/)
COLUMNS = metric_registry.columns(("recall@1", "recall@3", "mrr", "gs", "cd", "pc", "cgs"), paper.header(PAPER))


def load(results_dir: str | Path, splits_dir: str | Path, run: str = "closed", split: str = "test") -> pd.DataFrame:
    """Reported vs reproduced Table 26."""
    turns = results.load_per_turn(results_dir, run)
    turns = turns.join(pd.Series(read_split_ids(splits_dir), name="split"), on="dialogue_id")
    test = turns[turns["split"] == split]
    by = test.groupby("baseline")
    ours = by[[m for m in COLUMNS.values() if m in test.columns]].mean()
    ours["n_turns"], ours["n_dialogues"] = by.size(), by["dialogue_id"].nunique()
    ours["run"] = f"{run}:{split}"
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t26_test_split``."""
    return figures.save(compare.plot(df, "Table 26: test split, this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Size of the test split on this run and the mean absolute difference to the paper."""
    return {
        "n_dialogues": int(df["n_dialogues"].max()),
        "n_turns": int(df["n_turns"].max()),
        "mean_abs_diff": float(df["diff"].abs().mean()),
    }
