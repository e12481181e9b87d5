"""Per-baseline human scores and metric–human validation (seed 000 App. K.2–K.3; Tables 10, 12, 14, 15).

* :func:`majority_label` — majority vote over annotators; a tie resolves to the least
  supportive tied label (supported < partial < not supported), following the briefing's
  "if unsure, default to Partial" spirit of not crediting contested support.
* :func:`item_frame` — one row per item: ``item_id, dialogue_id, baseline``, mean
  informativeness / naturalness over annotators, majority citation counts, citation precision
  Supp / (Supp + Part + NotS) (NaN when the response quotes nothing), error-free (a strict
  majority checked "no_errors"), and the key file's metric columns.
* :func:`table10` — per baseline: Likert means over items, pooled majority citation counts and
  pooled citation precision (Table 10).
* :func:`error_breakdown` — per error category, the share of items where a strict majority of
  annotators checked it, overall and per baseline (App. K.2).
* :func:`metric_correlations` — Spearman ρ and Kendall τ_b of each metric against each human
  rating over items (Table 14), with a percentile bootstrap interval resampling items
  (indices drawn once by :func:`trace_crs.stats.bootstrap.bootstrap_indices`).
* :func:`paired_tests` — per-dialogue paired t-tests of every baseline pair on each column
  (:func:`trace_crs.stats.paired.paired_t`; Table 15).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from trace_crs import DEFAULT_SEED
from trace_crs.human.labels import CITATION_LABELS, ERROR_CATEGORIES
from trace_crs.stats.bootstrap import N_BOOT, bootstrap_indices
from trace_crs.stats.paired import paired_t

HUMAN_COLUMNS = ("cite_prec", "info", "nat", "error_free")
_RANK = {label: i for i, label in enumerate(CITATION_LABELS)}


def majority_label(votes: Sequence[str]) -> str:
    """Most frequent label; ties go to the least supportive tied label."""
    if not votes:
        raise ValueError("majority of no votes")
    counts = Counter(votes)
    top = max(counts.values())
    return max((v for v, c in counts.items() if c == top), key=_RANK.__getitem__)


def item_frame(t1: pd.DataFrame) -> pd.DataFrame:
    """One row per item (see the module docstring)."""
    extra = [
        c
        for c in t1.columns
        if c
        not in {
            "task",
            "annotator",
            "item_id",
            "dialogue_id",
            "baseline",
            "quotes",
            "errors",
            "informativeness",
            "naturalness",
            "comment",
            "system_label",
        }
    ]
    rows = []
    for item, g in t1.groupby("item_id", sort=True):
        n_quotes = max(len(q) for q in g["quotes"])
        maj = [majority_label([q[i] for q in g["quotes"] if i < len(q)]) for i in range(n_quotes)]
        counts = {label: maj.count(label) for label in CITATION_LABELS}
        rows.append(
            {
                "item_id": item,
                "dialogue_id": g["dialogue_id"].iloc[0],
                "baseline": g["baseline"].iloc[0],
                "n_annotators": int(len(g)),
                "info": float(g["informativeness"].mean()),
                "nat": float(g["naturalness"].mean()),
                **counts,
                "cite_prec": counts["supported"] / n_quotes if n_quotes else float("nan"),
                "error_free": float(sum("no_errors" in e for e in g["errors"]) > len(g) / 2),
                **{c: float(g[c].iloc[0]) for c in extra},
            }
        )
    return pd.DataFrame(rows)


def table10(items: pd.DataFrame) -> pd.DataFrame:
    """``baseline, n_items, info_mean, nat_mean, supported, partial, not_supported, cite_prec``."""
    g = items.groupby("baseline", sort=True)
    out = g.agg(
        n_items=("item_id", "size"),
        info_mean=("info", "mean"),
        nat_mean=("nat", "mean"),
        supported=("supported", "sum"),
        partial=("partial", "sum"),
        not_supported=("not_supported", "sum"),
    ).reset_index()
    total = out[["supported", "partial", "not_supported"]].sum(axis=1)
    out["cite_prec"] = np.where(total > 0, out["supported"] / total.where(total > 0), np.nan)
    return out


def error_breakdown(t1: pd.DataFrame) -> pd.DataFrame:
    """``category, scope, share, n_items``: strict-majority share per category (scope = all or a baseline)."""
    per_item = []
    for item, g in t1.groupby("item_id", sort=True):
        row = {"item_id": item, "baseline": g["baseline"].iloc[0]}
        row |= {c: float(sum(c in e for e in g["errors"]) > len(g) / 2) for c in ERROR_CATEGORIES}
        per_item.append(row)
    frame = pd.DataFrame(per_item)
    rows = []
    for scope, part in [("all", frame), *frame.groupby("baseline", sort=True)]:
        rows += [
            {"category": c, "scope": scope, "share": float(part[c].mean()), "n_items": int(len(part))}
            for c in ERROR_CATEGORIES
        ]
    return pd.DataFrame(rows)


def metric_correlations(
    items: pd.DataFrame,
    metrics: Sequence[str],
    humans: Sequence[str] = HUMAN_COLUMNS,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> pd.DataFrame:
    """``metric, human, method, r, ci_low, ci_high, n`` over items where both are defined."""
    rows = []
    for metric in metrics:
        for human in humans:
            pair = items[[metric, human]].dropna().to_numpy(float)
            n = len(pair)
            for method, fn in (("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
                r = lo = hi = float("nan")
                if n >= 3 and np.ptp(pair[:, 0]) > 0 and np.ptp(pair[:, 1]) > 0:
                    r = float(fn(pair[:, 0], pair[:, 1])[0])
                    reps = []
                    for idx in bootstrap_indices(n, n_boot, seed):
                        x, y = pair[idx, 0], pair[idx, 1]
                        if np.ptp(x) > 0 and np.ptp(y) > 0:
                            reps.append(float(fn(x, y)[0]))
                    if reps:
                        lo, hi = (float(v) for v in np.quantile(reps, [(1 - level) / 2, (1 + level) / 2]))
                rows.append(
                    {"metric": metric, "human": human, "method": method, "r": r, "ci_low": lo, "ci_high": hi, "n": n}
                )
    return pd.DataFrame(rows)


def paired_tests(items: pd.DataFrame, columns: Sequence[str], baselines: Sequence[str] | None = None) -> pd.DataFrame:
    """Paired t-test per (column, baseline pair) over dialogues (:func:`trace_crs.stats.paired.paired_t`)."""
    bases = sorted(items["baseline"].unique()) if baselines is None else list(baselines)
    rows = []
    for col in columns:
        for a, b in combinations(bases, 2):
            try:
                rows.append(paired_t(items, a, b, col, source="human items"))
            except ValueError as exc:  # fewer than two dialogues defined for both: say so, keep going
                rows.append({"a": a, "b": b, "metric": col, "n": 0, "note": str(exc)})
    return pd.DataFrame(rows)
