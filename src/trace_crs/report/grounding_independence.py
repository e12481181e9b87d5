"""Grounding metric independence (Appendix L): are GS, CD and PC measuring different things?

Spearman ρ between GS, CD and PC over the pooled turns of the non-LLM baselines
(``stats.checks.metric_independence``).  Untabled in the paper; the notebook writes
``tables/grounding_independence.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, results, sensitivity
from trace_crs.stats.checks import metric_independence

NAME = "grounding_independence"  # notebook, module, table CSV and figure stem


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """``metric_a, metric_b, spearman_rho, …`` with the baselines pooled."""
    turns = results.load_per_turn(results_dir, runs)
    non_llm = sorted(b for b in turns["baseline"].unique() if compare.family(b) == "non_llm")
    return metric_independence(turns, baselines=non_llm).assign(baselines=", ".join(non_llm))


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """ρ per metric pair; ``figures/grounding_independence``."""
    fig = sensitivity.bars(
        df.assign(pair=df["metric_a"] + "–" + df["metric_b"]), "pair", "spearman_rho", "Spearman ρ over pooled turns"
    )
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Pooled turns, the largest |ρ| and each pair's ρ."""
    return {
        "n_turns": int(df["n_turns"].iloc[0]),
        "max_abs_rho": float(df["spearman_rho"].abs().max()),
        **{
            f"rho_{a}_{b}": float(r)
            for a, b, r in zip(df["metric_a"], df["metric_b"], df["spearman_rho"], strict=False)
        },
    }
