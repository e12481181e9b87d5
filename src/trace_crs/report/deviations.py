"""Deviations from the paper: every reproduced cell whose printed value lies outside our
dialogue-cluster bootstrap interval, with its known cause (the book's Deviations page: every
deviating cell names a cause or says "unexplained").

``load`` lays out Tables 5, 6 and 9 (reported vs reproduced, via their own modules), joins
each cell with its interval from :func:`trace_crs.stats.intervals.cell_intervals` and gives
every cell a verdict: ``deviates`` (printed value outside the interval), ``within CI``,
``insufficient n`` (fewer dialogues than :data:`~trace_crs.stats.intervals.MIN_CLUSTERS` or a
degenerate interval: no claim either way) or ``no interval`` (the metric has no per-row scores,
e.g. a system-level number).  A deviating cell's cause comes, in this order, from the tested
diagnosis (``causes``: :func:`trace_crs.report.diagnosis.causes`, the variants that explain or
partly explain the cell's pattern, else "unexplained (tested: …)"), for an LLM row from the run's
actual model (:func:`llm_cause`, read from the run's ``config.yaml``; untested), then from the
definitional rules of ``deviation_causes.yaml`` (first match wins), else "unexplained".
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from trace_crs import DEFAULT_SEED
from trace_crs.metrics.registry import METRICS, higher_is_better
from trace_crs.report import compare, results
from trace_crs.stats.bootstrap import N_BOOT
from trace_crs.stats.intervals import MIN_CLUSTERS

NAME = "deviations"
TABLES: tuple[str, ...] = ("t05_headline", "t06_per_axis", "t09_practical")
VERDICTS: tuple[str, ...] = ("deviates", "within CI", "insufficient n", "no interval")
CAUSES_FILE = Path(__file__).with_name("deviation_causes.yaml")


@cache
def causes() -> tuple[dict[str, str], ...]:
    """The cause rules, in file order."""
    return tuple(yaml.safe_load(CAUSES_FILE.read_text()))


PAPER_LLM = "gpt-5.4-mini"  # the paper's LLM backbone (§4)


def llm_cause(results_dir: str | Path, run: str) -> str:
    """The untested cause of an LLM row's deviation, from run ``run``'s model and size."""
    try:
        config = results.load_run_config(results_dir, run)
    except FileNotFoundError:
        return "unexplained (the run's config is missing)"
    lm = config.get("lm") or {}
    model = (
        f"the local model {lm.get('weights')} (llama.cpp, CPU)"
        if lm.get("model") == "local"
        else f"the model {lm.get('model')}"
    )
    size = f"a seeded subset of {config['subset']} dialogues" if config.get("subset") else "the whole corpus"
    return (
        f"LLM rows use {model} on {size} instead of the paper's {PAPER_LLM} on 10,000 dialogues; "
        "not tested by a variant"
    )


def cause_of(
    table: str, column: str, baseline: str, tested: Mapping[tuple[str, str], str] | None = None, llm: str | None = None
) -> str:
    """The cell's cause: its tested diagnosis (``tested[(column, baseline)]``, Table 5 cells), the
    LLM model text ``llm`` for an LLM row, else the first matching rule, else ``"unexplained"``."""
    if tested and table == "table5_headline" and (column, baseline) in tested:
        return tested[(column, baseline)]
    if llm and baseline in compare.BASELINES and compare.family(baseline) == "llm":
        return llm
    cell = {
        "table": table,
        "column": column,
        "baseline": baseline,
        "family": compare.family(baseline) if baseline in compare.BASELINES else "",
    }
    for rule in causes():
        if all(cell.get(k) == v for k, v in rule.items() if k != "cause"):
            return str(rule["cause"])
    return "unexplained"


def verdict(paper: float, low: float, high: float, sufficient: bool) -> str:
    """One of :data:`VERDICTS` for a printed value against our interval."""
    if pd.isna(low) or pd.isna(high):
        return "no interval"
    if not sufficient:
        return "insufficient n"
    return "within CI" if low <= paper <= high else "deviates"


# The paper's own corpus (profile ``official``: the release imported by ``trace-crs release import``,
# mk/official.mk): each cell's printed value against the interval of the same run, baseline and
# metric scored on that corpus, when ``results/official`` holds it.
OFFICIAL = "official"
OFFICIAL_COLUMN = "reproduced on the paper's corpus"
OFFICIAL_HOW = "needs input (the official release and Yelp): make paper DATASET=official RELEASE_DIR=<release> YELP_DIR=<Yelp bundle>"
OFFICIAL_NO_ROW = "not scored on the paper's corpus (not in configs/official)"
OFFICIAL_SELF = "this page is on the paper's corpus"


def official_dir(results_dir: str | Path) -> Path | None:
    """``results/official`` beside ``results_dir`` when it holds scores (None for the official
    profile itself, or when no official-corpus run exists)."""
    path = Path(results_dir).parent / OFFICIAL
    if Path(results_dir).name == OFFICIAL or not any(path.glob("scores/*/*.json")):
        return None
    return path


def official_cells(
    long: pd.DataFrame, official: Path | None, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> list[str]:
    """Per cell of ``long`` (``run, baseline, metric, paper``): the official corpus's value and
    interval with the printed value's verdict against it, e.g. ``0.250 [0.18, 0.31] within CI``;
    :data:`OFFICIAL_HOW` when there is no official-corpus run, :data:`OFFICIAL_NO_ROW` when that
    run or baseline was not scored there."""
    if official is None:
        return [OFFICIAL_HOW] * len(long)
    runs = [r for r in sorted(set(long["run"].dropna())) if any((official / "scores" / r).glob("*.json"))]
    if not runs:
        return [OFFICIAL_NO_ROW] * len(long)
    ci = compare.run_intervals(official, runs, sorted(set(long["metric"])), n_boot=n_boot, seed=seed).set_index(
        ["run", "baseline", "metric"]
    )
    out = []
    for run, baseline, metric, paper in zip(long["run"], long["baseline"], long["metric"], long["paper"], strict=False):
        if (run, baseline, metric) not in ci.index:
            out.append(OFFICIAL_NO_ROW)
            continue
        c = ci.loc[(run, baseline, metric)]
        v = verdict(paper, c["ci_low"], c["ci_high"], bool(c["sufficient"]))
        interval = f" [{c['ci_low']:.2f}, {c['ci_high']:.2f}]" if v != "no interval" else ""
        n = f" (n = {int(c['n_clusters'])})" if v == "insufficient n" else ""
        out.append(f"{c['mean']:.3f}{interval} {v}{n}")
    return out


def load(
    results_dir: str | Path,
    tables: Sequence[str] = TABLES,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    table_params: Mapping[str, Mapping[str, Any]] | None = None,
    tested: Mapping[tuple[str, str], str] | None = None,
) -> pd.DataFrame:
    """Every cell with a printed and a reproduced value, its interval and verdict (``table``: the
    printed table's name).  ``table_params[key]`` is passed to that table's ``load``; ``tested``
    holds the diagnosis's causes per (column, baseline) (:func:`trace_crs.report.diagnosis.causes`)."""
    cells = []
    for key in tables:
        module = importlib.import_module(f"trace_crs.report.{key}")
        frame = module.load(results_dir, **(table_params or {}).get(key, {})).dropna(
            subset=["paper", "ours", "baseline"]
        )
        cells.append(frame.assign(table=module.PAPER))
    long = pd.concat(cells, ignore_index=True)
    runs = sorted(set(long["run"].dropna()))
    intervals = compare.run_intervals(results_dir, runs, sorted(set(long["metric"])), n_boot=n_boot, seed=seed)
    long = long.merge(intervals.drop(columns="mean"), on=["run", "baseline", "metric"], how="left")
    long["sufficient"] = long["sufficient"].astype("boolean").fillna(False).astype(bool)
    long["verdict"] = [
        verdict(p, lo, hi, s)
        for p, lo, hi, s in zip(long["paper"], long["ci_low"], long["ci_high"], long["sufficient"], strict=False)
    ]
    llm = {run: llm_cause(results_dir, run) for run in runs}
    long[OFFICIAL_COLUMN] = (
        OFFICIAL_SELF
        if Path(results_dir).name == OFFICIAL
        else official_cells(long, official_dir(results_dir), n_boot=n_boot, seed=seed)
    )
    long["cause"] = [
        cause_of(t, c, b, tested, llm.get(r)) if v == "deviates" else ""
        for t, c, b, v, r in zip(
            long["table"], long["column"], long["baseline"], long["verdict"], long["run"], strict=False
        )
    ]
    columns = [
        "table",
        "Baseline",
        "baseline",
        "column",
        "metric",
        "run",
        "paper",
        "ours",
        "diff",
        "ci_low",
        "ci_high",
        "n_clusters",
        "verdict",
        "cause",
        OFFICIAL_COLUMN,
    ]
    out = long[columns].reset_index(drop=True)
    return out


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Cells per table and verdict (rows: tables; columns: :data:`VERDICTS`)."""
    counts = df.groupby(["table", "verdict"]).size().unstack(fill_value=0)
    return counts.reindex(columns=list(VERDICTS), fill_value=0)


def direction(metric: str, diff: float) -> str:
    """Whether ours is ``better`` or ``worse`` than the printed value (``diff = ours - paper``),
    by the metric's direction in the metric registry (a table's variant ``recall@1_open`` reads
    ``recall@1``); ``""`` for a metric outside it or no difference."""
    metric = metric if metric in METRICS else metric.rsplit("_", 1)[0]
    if metric not in METRICS or pd.isna(diff) or diff == 0:
        return ""
    return "better" if (diff > 0) == higher_is_better(metric) else "worse"


def deviating(df: pd.DataFrame) -> pd.DataFrame:
    """The cells whose printed value lies outside our interval, largest |diff| first, with whether
    ours is better or worse than the paper's (:func:`direction`)."""
    rows = df[df["verdict"] == "deviates"]
    rows = rows.assign(ours_vs_paper=[direction(m, d) for m, d in zip(rows["metric"], rows["diff"], strict=True)])
    return rows.reindex(rows["diff"].abs().sort_values(ascending=False).index)[
        [
            "table",
            "Baseline",
            "column",
            "paper",
            "ours",
            "ours_vs_paper",
            "ci_low",
            "ci_high",
            "n_clusters",
            "cause",
            OFFICIAL_COLUMN,
        ]
    ]


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose (glued)."""
    counts = df["verdict"].value_counts()
    tested_cause = df["cause"].str.contains(r"\b(?:explains|partly)\b", regex=True)
    unexplained = int(((df["verdict"] == "deviates") & df["cause"].str.contains("unexplained") & ~tested_cause).sum())
    return {
        "n_cells": int(len(df)),
        "min_clusters": MIN_CLUSTERS,
        "unexplained": unexplained,
        **{v.replace(" ", "_"): int(counts.get(v, 0)) for v in VERDICTS},
    }
