"""Table 28: cross-judge agreement of Trace's Likert judge (Appendix T).

Two judges re-score the same baselines of one run on the same seeded turns
(:func:`trace_crs.metrics.judge.judged_turns`), each with the five-scale Likert judge of
:mod:`trace_crs.metrics.judge`; a baseline's score is its mean ``judge_overall`` (the mean of the
five scales).  Agreement is Kendall τ / Spearman ρ of the two judges' per-baseline means
(:func:`~trace_crs.metrics.judge.cross_judge_agreement`), computed the same way from the paper's
printed GPT-4o / Claude means.  Judge A stands in the paper's GPT-4o column, judge B in Claude's.

This is the paper's instrument (Likert 1–5 per response).  The CoRE chapter's "Table 28 twin"
(:mod:`trace_crs.report.core_judge`, ``tables/table28_cross_judge.csv``) ranks the same baselines
by CoRE-Avg over whole conversations — a different instrument; this module writes
``tables/t28_cross_judge.csv`` so the two never overwrite each other.

Reads only ``<results_dir>/judge/<run>/likert_<a|b>/<baseline>.json`` — score files written by
``make judge-likert`` (``mk/judge.mk``; each holds the judge's model in ``judge_usage``).  A judge
that was not run gives NaN columns, and :func:`status` says so in words.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper
from trace_crs.report.core_judge import agreement

NAME = "t28_cross_judge"  # not table28_cross_judge.csv: that is the CoRE chapter's twin
PAPER = "table28_cross_judge"  # the paper's printed Table 28 (shared with the CoRE twin)
JUDGES = ("likert_a", "likert_b")
PAPER_COLUMNS = ("GPT-4o", "Claude")  # judge A, judge B
METRIC = "judge_overall"


def judge_dir(results_dir: str | Path, run: str, judge: str) -> Path:
    """Where ``make judge-likert`` writes one judge's score files for a run."""
    return Path(results_dir) / "judge" / run / judge


def _aggregates(results_dir: str | Path, run: str, judge: str) -> dict[str, dict[str, Any]]:
    d = judge_dir(results_dir, run, judge)
    return {p.stem: json.loads(p.read_text()) for p in sorted(d.glob("*.json"))} if d.is_dir() else {}


def models(results_dir: str | Path, run: str = "closed", judges: Sequence[str] = JUDGES) -> dict[str, str | None]:
    """The LM of each judge (``judge_usage.model`` of its score files; None when not run)."""
    out: dict[str, str | None] = {}
    for j in judges:
        found = {(a.get("judge_usage") or {}).get("model") for a in _aggregates(results_dir, run, j).values()}
        out[j] = ", ".join(sorted(m for m in found if m)) or None
    return out


def status(results_dir: str | Path, run: str = "closed", judges: Sequence[str] = JUDGES) -> str:
    """One sentence for the page: which judges were run, with which models."""
    have = {j: m for j, m in models(results_dir, run, judges).items() if m}
    if len(have) < len(judges):
        missing = [str(judge_dir(results_dir, run, j)) for j in judges if j not in have]
        return (
            f"**Not run on this profile**: no Likert judge outputs in {', '.join(f'`{m}`' for m in missing)} "
            "(`make judge-likert` writes them; it needs two LMs). The table below shows the paper's numbers only."
        )
    return (
        "Judges: "
        + "; ".join(f"{c} column = `{j}` (`{have[j]}`)" for c, j in zip(PAPER_COLUMNS, judges, strict=False))
        + "."
    )


def means(
    results_dir: str | Path, run: str = "closed", judges: Sequence[str] = JUDGES, metric: str = METRIC
) -> pd.DataFrame:
    """Per baseline (index) and judge (column): the mean ``metric``, and ``n_<judge>`` judged turns."""
    cols: dict[str, pd.Series] = {}
    for j in judges:
        aggs = _aggregates(results_dir, run, j)
        cols[j] = pd.Series({b: a["metrics"].get(metric) for b, a in aggs.items()}, dtype=float)
        cols[f"n_{j}"] = pd.Series(
            {b: (a.get("judge_usage") or {}).get("n_turns", 0) for b, a in aggs.items()}, dtype=float
        )
    return pd.DataFrame(cols).rename_axis("baseline")


def load(results_dir: str | Path, run: str = "closed", judges: Sequence[str] = JUDGES) -> pd.DataFrame:
    """Reported vs reproduced Table 28 (long frame of :func:`~trace_crs.report.compare.side_by_side`);
    the notebook writes it to ``tables/<NAME>.csv``."""
    return compare.side_by_side(
        paper.table(PAPER), means(results_dir, run, judges), dict(zip(PAPER_COLUMNS, judges, strict=False))
    )


def agreement_table(long: pd.DataFrame) -> pd.DataFrame:
    """Kendall τ, Spearman ρ and the number of baselines, ours and the paper's (from printed means)."""
    table = pd.DataFrame(agreement(long)).T.rename_axis("judges").reset_index()
    return table.astype({"n_systems": int})


def plot(long: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Judge A vs judge B per baseline (ours, and the paper's printed means); saved as
    ``figures/t28_cross_judge``."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    for ax, side in zip(axes, ("ours", "paper"), strict=False):
        wide = long.pivot(index="Baseline", columns="column", values=side).dropna()
        ax.scatter(wide.get(PAPER_COLUMNS[0], []), wide.get(PAPER_COLUMNS[1], []), s=18)
        ax.set(
            xlabel="judge A (paper: GPT-4o)",
            ylabel="judge B (paper: Claude)",
            title=f"{'this run' if side == 'ours' else 'paper'}: mean Likert per baseline",
        )
        if len(wide) and set(PAPER_COLUMNS[:2]) <= set(wide.columns):
            figures.label_points(ax, wide[PAPER_COLUMNS[0]], wide[PAPER_COLUMNS[1]], [str(n) for n in wide.index])
    figures.save(fig, NAME, figures_dir)
    return fig


def facts(long: pd.DataFrame) -> dict[str, Any]:
    """Numbers cited in the page's prose (NaN when a judge was not run)."""
    agree = agreement(long)
    ours = long.dropna(subset=["ours"])
    a, b = (ours.loc[ours["column"] == c, "ours"].mean() for c in PAPER_COLUMNS)
    return {
        "tau_ours": agree["ours"]["kendall_tau"],
        "rho_ours": agree["ours"]["spearman_rho"],
        "n_ours": agree["ours"]["n_systems"],
        "tau_paper": agree["paper"]["kendall_tau"],
        "rho_paper": agree["paper"]["spearman_rho"],
        "gap_ours": float(a - b),
    }
