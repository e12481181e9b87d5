"""Table 26 (Appendix R): the closed-set non-LLM run re-aggregated on the official test split.

Per-turn scores of ``run`` joined with each dialogue's ``split`` from the dialogue corpus;
turn metrics are means over the test-split turns (§5).  Writes
``tables/table26_test_split.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.kb.store import iter_jsonl
from trace_crs.report import compare, figures, results

NAME = "table26_test_split"
COLUMNS = {"R@1": "recall@1", "R@3": "recall@3", "MRR": "mrr", "GS": "gs", "CD": "cd",
           "PC": "pc", "CGS": "cgs"}


def splits(dialogues_path: str | Path) -> pd.Series:
    """``split`` of every dialogue in a corpus file, indexed by ``dialogue_id``."""
    path = results.require(dialogues_path, "dialogue corpus")
    pairs = {rec["dialogue_id"]: rec["split"] for _, rec in iter_jsonl(path)}
    return pd.Series(pairs, name="split")


def load(results_dir: str | Path, dialogues_path: str | Path, run: str = "closed",
         split: str = "test") -> pd.DataFrame:
    """Reported vs reproduced Table 26; writes the table CSV."""
    turns = results.load_per_turn(results_dir, run)
    turns = turns.join(splits(dialogues_path), on="dialogue_id")
    test = turns[turns["split"] == split]
    by = test.groupby("baseline")
    ours = by[[m for m in COLUMNS.values() if m in test.columns]].mean()
    ours["n_turns"], ours["n_dialogues"] = by.size(), by["dialogue_id"].nunique()
    ours["run"] = f"{run}:{split}"
    return compare.publish(results_dir, NAME, ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/table26_test_split``."""
    fig = compare.plot(df, "Table 26: test split, this run vs paper")
    figures.save(fig, NAME, figures_dir)
    return fig


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Size of the test split on this run and the mean absolute difference to the paper."""
    return {"n_dialogues": int(df["n_dialogues"].max()), "n_turns": int(df["n_turns"].max()),
            "mean_abs_diff": float(df["diff"].abs().mean())}
