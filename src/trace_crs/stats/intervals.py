"""Dialogue-cluster bootstrap intervals for every reproduced cell (paper Appendix L).

A cell is one (run, baseline, metric).  Its rows are turns (per-turn metrics) or dialogues
(per-dialogue metrics); rows where the metric is undefined (NaN) are dropped, as in the
aggregates.  The mean over rows is the ratio estimator ``Σ_d S_d / Σ_d N_d`` with S_d, N_d the
sum and count of the metric over dialogue d's rows; dialogues are resampled with replacement
using the same index matrix as :mod:`trace_crs.stats.bootstrap` (``default_rng(seed).choice``),
and the interval is the percentile interval of the replicates.

With fewer than :data:`MIN_CLUSTERS` dialogues, or when every replicate gives the same value
(a degenerate interval), the cell is marked ``sufficient = False``: such an interval is not
evidence of anything and the report says "insufficient n" instead of comparing against it.

Derived cells (a gap of two means, a Pearson r over turns, a mean within a subset of turns;
Tables 17, 19, 22, 23, 27) are not one column's mean, so :func:`cluster_statistic_ci` bootstraps
an arbitrary statistic of a per-turn frame: each replicate is the statistic of the frame made of
the resampled dialogues' rows (same index matrix, same sufficiency rule), and
:func:`statistic_intervals` applies a set of such :class:`Derived` columns to every baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.metrics.registry import POOLED_RATIOS
from trace_crs.stats.bootstrap import MIN_CLUSTERS, N_BOOT, bootstrap_indices, resample_weights
from trace_crs.stats.frames import require_columns

CI_COLUMNS = ["run", "baseline", "metric", "mean", "ci_low", "ci_high", "n_rows", "n_clusters", "sufficient"]


def cluster_mean_ci(
    frame: pd.DataFrame,
    metric: str,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
    denominator: str | None = None,
) -> dict[str, float | int | bool]:
    """Mean of ``metric`` over the defined rows of ``frame`` and its cluster-bootstrap interval.

    ``frame`` needs ``dialogue_id`` and ``metric``.  With ``denominator`` (a count column) the
    estimate is the pooled ratio Σ metric / Σ denominator (``metric`` a count of events, e.g.
    recovered episodes) and ``n_rows`` is Σ denominator.  Returns ``mean, ci_low, ci_high,
    n_rows, n_clusters, sufficient``; with no defined row every number is NaN and
    ``sufficient`` False.
    """
    require_columns(frame, ["dialogue_id", metric] + ([denominator] if denominator else []), "score frame")
    rows = frame.loc[frame[metric].notna(), ["dialogue_id", metric] + ([denominator] if denominator else [])]
    if denominator:
        rows = rows[rows[denominator] > 0]
    if rows.empty:
        nan = float("nan")
        return {"mean": nan, "ci_low": nan, "ci_high": nan, "n_rows": 0, "n_clusters": 0, "sufficient": False}
    groups = rows.groupby("dialogue_id", sort=True)
    s = groups[metric].sum().to_numpy(float)
    n = (groups[denominator].sum() if denominator else groups[metric].count()).to_numpy(float)
    weights = resample_weights(bootstrap_indices(len(s), n_boot, seed), len(s))
    replicates = (weights @ s) / (weights @ n)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(replicates, [alpha, 1.0 - alpha])
    return {
        "mean": float(s.sum() / n.sum()),
        "ci_low": float(low),
        "ci_high": float(high),
        "n_rows": int(n.sum()),
        "n_clusters": int(len(s)),
        "sufficient": bool(len(s) >= min_clusters and high > low),
    }


def cell_intervals(
    per_turn: pd.DataFrame,
    per_dialogue: pd.DataFrame,
    metrics: Sequence[str],
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> pd.DataFrame:
    """One row per (run, baseline, metric) found in the frames (:data:`CI_COLUMNS`).

    A metric is read from the per-turn frame when it has that column, else from the
    per-dialogue frame; a pooled ratio (:data:`~trace_crs.metrics.registry.POOLED_RATIOS`,
    e.g. rejection recovery) from its numerator and denominator columns, as the aggregate is;
    metrics in neither are skipped (no interval can be formed)."""
    out = []
    for metric in metrics:
        column, denominator = metric, None
        if metric in POOLED_RATIOS and set(POOLED_RATIOS[metric]) <= set(per_dialogue.columns):
            (column, denominator), source = POOLED_RATIOS[metric], per_dialogue
        else:
            source = (
                per_turn if metric in per_turn.columns else per_dialogue if metric in per_dialogue.columns else None
            )
        if source is None:
            continue
        for (run, baseline), part in source.groupby(["run", "baseline"], sort=True):
            cell = cluster_mean_ci(part, column, n_boot, seed, level, min_clusters, denominator)
            out.append({"run": run, "baseline": baseline, "metric": metric, **cell})
    return pd.DataFrame(out, columns=CI_COLUMNS)


DERIVED_COLUMNS = ["baseline", "column", "estimate", "ci_low", "ci_high", "n_rows", "n_clusters", "sufficient"]


class Derived(NamedTuple):
    """One derived table column: ``statistic`` of a baseline's per-turn frame, over the rows that
    ``rows`` selects (all when None; the dialogues with such rows are the clusters, so ``n`` counts
    only them), formed only when the frame has every column of ``needs``."""

    statistic: Callable[[pd.DataFrame], float]
    rows: Callable[[pd.DataFrame], pd.Series] | None = None
    needs: tuple[str, ...] = ()


def turn_mean(column: str) -> Callable[[pd.DataFrame], float]:
    """The statistic "mean of ``column`` over the turns where it is defined", as the aggregates
    compute turn metrics (NaN skipped)."""
    return lambda frame: float(frame[column].mean())


def cluster_statistic_ci(
    frame: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> dict[str, float | int | bool]:
    """``statistic(frame)`` and its dialogue-cluster bootstrap interval.

    Dialogues (``dialogue_id``, sorted) are drawn with :func:`bootstrap_indices`, exactly as
    :func:`cluster_mean_ci` draws them, and each replicate is ``statistic`` of the frame holding
    every row of every drawn dialogue (a dialogue drawn twice appears twice).  Replicates where the
    statistic is undefined (NaN, e.g. a Pearson r over a constant resample) are left out of the
    percentile interval.  Returns ``estimate, ci_low, ci_high, n_rows, n_clusters, sufficient``;
    ``sufficient`` is False below ``min_clusters`` dialogues, for a degenerate interval, or when
    the estimate itself is undefined.
    """
    require_columns(frame, ["dialogue_id"], "score frame")
    nan = float("nan")
    if frame.empty:
        return {"estimate": nan, "ci_low": nan, "ci_high": nan, "n_rows": 0, "n_clusters": 0, "sufficient": False}
    codes, ids = pd.factorize(frame["dialogue_id"], sort=True)
    order = np.argsort(codes, kind="stable")  # rows grouped by dialogue, dialogues sorted
    counts = np.bincount(codes, minlength=len(ids))
    starts = np.cumsum(counts) - counts
    replicates = np.empty(n_boot)
    for b, draw in enumerate(bootstrap_indices(len(ids), n_boot, seed)):
        lens = counts[draw]
        within = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        replicates[b] = statistic(frame.iloc[order[np.repeat(starts[draw], lens) + within]])
    defined = replicates[~np.isnan(replicates)]
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(defined, [alpha, 1.0 - alpha]) if defined.size else (nan, nan)
    estimate = float(statistic(frame))
    return {
        "estimate": estimate,
        "ci_low": float(low),
        "ci_high": float(high),
        "n_rows": int(len(frame)),
        "n_clusters": int(len(ids)),
        "sufficient": bool(len(ids) >= min_clusters and high > low and not np.isnan(estimate)),
    }


def statistic_intervals(
    per_turn: pd.DataFrame,
    columns: Mapping[str, Derived],
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> pd.DataFrame:
    """One row per (baseline, column) (:data:`DERIVED_COLUMNS`): :func:`cluster_statistic_ci` of
    each :class:`Derived` column on each baseline's turns (all runs of ``per_turn`` together, as
    the tables pool them by baseline).  Columns whose ``needs`` are absent, or whose ``rows``
    select no turn, are skipped (no interval can be formed)."""
    require_columns(per_turn, ["baseline", "dialogue_id"], "per-turn scores")
    out = []
    for baseline, part in per_turn.groupby("baseline", sort=True):
        for name, col in columns.items():
            if not set(col.needs) <= set(part.columns):
                continue
            rows = part[col.rows(part).to_numpy(bool)] if col.rows is not None else part
            if rows.empty:
                continue
            cell = cluster_statistic_ci(rows, col.statistic, n_boot, seed, level, min_clusters)
            out.append({"baseline": baseline, "column": name, **cell})
    return pd.DataFrame(out, columns=DERIVED_COLUMNS)


def wilson(k: pd.Series, n: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Wilson 95% interval of k successes in n (statsmodels ``proportion_confint``); NaN at n = 0."""
    from statsmodels.stats.proportion import proportion_confint

    k, n = k.to_numpy(float), n.to_numpy(float)
    lo, hi = proportion_confint(k, np.where(n > 0, n, 1), alpha=0.05, method="wilson")
    return np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan)
