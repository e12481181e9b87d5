"""Table 29: LLM-as-judge Likert scores per baseline (Appendix U).

Means of the ``judge_<scale>`` metrics (:mod:`trace_crs.metrics.judge`) from the runs
whose score config enabled the judge; baselines not judged on this profile show NaN.  The
paper's "Overall" column has no twin here (no overall scale is scored).  Writes
``tables/table29_llm_judge.csv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, results

NAME = "table29_llm_judge"
COLUMNS = {"Relevance": "judge_relevance", "Informativeness": "judge_informativeness",
           "Grounding": "judge_grounding_quality", "Flow": "judge_natural_flow",
           "Justification": "judge_justification", "Overall": "judge_overall"}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 29; writes the table CSV."""
    ours = results.metric_table(results.load_aggregates(results_dir, runs))
    return compare.publish(results_dir, NAME, ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/table29_llm_judge``."""
    fig = compare.plot(df, "Table 29: judge scores, this run vs paper")
    figures.save(fig, NAME, figures_dir)
    return fig


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """How many baselines were judged on this profile."""
    judged = df[df["ours"].notna()]
    return {"n_judged": int(judged["baseline"].nunique())}
