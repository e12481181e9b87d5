"""Table 29: LLM-as-judge Likert scores per baseline (Appendix U), every baseline on the same turns.

Means of the ``judge_<scale>`` metrics (:mod:`trace_crs.metrics.judge`) from the runs whose score
config enabled the judge.  The judged turns are the seeded subset of
:func:`trace_crs.metrics.judge.judged_turns` — a function of the corpus, seed and ``judge_n``
only — so the non-LLM rows (run ``closed``) and the LLM rows (run ``closed_llm``) are rated on the
same turns.  Beside the printed table (:func:`load`, ``tables/table29_llm_judge.csv``) the page
shows every baseline's number of judged turns and a dialogue-cluster bootstrap interval per scale
(:func:`intervals`, :func:`~trace_crs.stats.intervals.cluster_mean_ci`; "insufficient n" below
:data:`~trace_crs.stats.bootstrap.MIN_CLUSTERS` dialogues), and what the judge cost beside what
the baseline itself cost (:func:`costs`, :mod:`trace_crs.stats.cost`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs import DEFAULT_SEED
from trace_crs.report import compare, figures, paper, results
from trace_crs.stats.bootstrap import MIN_CLUSTERS, N_BOOT
from trace_crs.stats.cost import cost_accounting, judge_costs, with_judge
from trace_crs.stats.intervals import cluster_mean_ci

NAME = "table29_llm_judge"
CI_NAME = "table29_llm_judge_ci"
COST_NAME = "table29_judge_cost"
NAMES = {"table": NAME, "intervals": CI_NAME, "cost": COST_NAME}  # every table CSV the page writes
COLUMNS = {
    "Relevance": "judge_relevance",
    "Informativeness": "judge_informativeness",
    "Grounding": "judge_grounding_quality",
    "Flow": "judge_natural_flow",
    "Justification": "judge_justification",
    "Overall": "judge_overall",
}
CI_COLUMNS = [
    "Baseline",
    "baseline",
    "run",
    "column",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "n_turns",
    "n_clusters",
    "sufficient",
    "n_failed",
]


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 29 (the notebook writes it to ``tables/table29_llm_judge.csv``)."""
    ours = results.metric_table(results.load_aggregates(results_dir, runs))
    return compare.side_by_side(paper.table(NAME), ours, COLUMNS)


def intervals(
    results_dir: str | Path,
    runs: Sequence[str] = ("closed", "closed_llm"),
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    min_clusters: int = MIN_CLUSTERS,
) -> pd.DataFrame:
    """One row per (baseline, scale): mean over the judged turns, its dialogue-cluster bootstrap
    interval, ``n_turns`` rated, ``n_clusters``, ``sufficient`` and ``n_failed`` (judged turns
    whose rating could not be parsed; every baseline of ``runs``, ``n_turns = 0`` when it was not
    judged); the notebook writes it to ``tables/table29_llm_judge_ci.csv``."""
    per_turn = results.load_per_turn(results_dir, runs)
    rows = []
    for (run, base), part in per_turn.groupby(["run", "baseline"], sort=True):
        failed = (results.read_aggregate(results_dir, run, base).get("judge_usage") or {}).get("n_failed", 0)
        for col, metric in COLUMNS.items():
            frame = part if metric in part.columns else part.assign(**{metric: float("nan")})
            cell = cluster_mean_ci(frame, metric, n_boot, seed, min_clusters=min_clusters)
            rows.append(
                {
                    "Baseline": compare.label(base),
                    "baseline": base,
                    "run": run,
                    "column": col,
                    "metric": metric,
                    **cell,
                    "n_turns": cell.pop("n_rows"),
                    "n_failed": failed,
                }
            )
    return pd.DataFrame(rows, columns=CI_COLUMNS)


def _cell(row: pd.Series) -> str:
    if row["n_turns"] == 0:
        return "no parseable rating" if row["n_failed"] else "not judged"
    if not row["sufficient"]:
        return f"{row['mean']:.2f} (insufficient n)"
    return f"{row['mean']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"


def display(ci: pd.DataFrame) -> pd.DataFrame:
    """The page's table: one row per baseline, judged turns and dialogues, ``mean [95% CI]`` per
    scale ("insufficient n" below the minimum number of dialogue clusters) and the judged turns
    whose rating could not be parsed (``failed``)."""
    if ci.empty:
        return pd.DataFrame(columns=["Baseline", "turns", "dialogues", "failed", *COLUMNS])
    wide = ci.assign(cell=ci.apply(_cell, axis=1)).pivot(index="Baseline", columns="column", values="cell")
    counts = ci[ci["column"] == "Overall"].set_index("Baseline")[["n_turns", "n_clusters", "n_failed"]]
    out = counts.rename(columns={"n_turns": "turns", "n_clusters": "dialogues", "n_failed": "failed"}).join(
        wide[list(COLUMNS)]
    )
    order = list(dict.fromkeys(ci["Baseline"]))
    return out.reindex(order).reset_index()


def costs(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Per baseline: its own run cost (records, :func:`~trace_crs.stats.cost.cost_accounting`) and
    the judge's calls, tokens, $ and seconds (score files' ``judge_usage``); $ is NaN for a model
    the price table does not price (tokens and seconds still shown); the notebook writes it to
    ``tables/table29_judge_cost.csv``."""
    own, usage = [], {}
    for run in runs:
        rec = results.records_file(results_dir, run)
        own.append(cost_accounting(pd.read_parquet(rec), source=str(rec), strict=False).assign(run=run))
        for base in results.run_baselines(results_dir, run):
            usage[base] = results.read_aggregate(results_dir, run, base).get("judge_usage")
    return with_judge(
        pd.concat(own, ignore_index=True), judge_costs(usage, source=f"{results_dir}/scores", strict=False)
    )


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/table29_llm_judge``."""
    fig = compare.plot(df, "Table 29: judge scores, this run vs paper")
    figures.save(fig, NAME, figures_dir)
    return fig


def facts(df: pd.DataFrame, ci: pd.DataFrame | None = None, cost: pd.DataFrame | None = None) -> dict[str, Any]:
    """How many baselines were judged, on how many turns, and what judging cost."""
    judged = df[df["ours"].notna()]
    out: dict[str, Any] = {"n_judged": int(judged["baseline"].nunique())}
    if ci is not None:
        overall = ci[ci["column"] == "Overall"]
        out |= {
            "min_clusters": MIN_CLUSTERS,
            "n_baselines": int(overall["baseline"].nunique()),
            "n_turns_max": int(overall["n_turns"].max()) if len(overall) else 0,
            "n_sufficient": int(overall["sufficient"].sum()),
        }
    if cost is not None and "judge_s" in cost:
        out |= {
            "judge_s": float(cost["judge_s"].sum(skipna=True)),
            "judge_tokens": float((cost["judge_prompt_tokens"] + cost["judge_completion_tokens"]).sum(skipna=True)),
        }
    return out
