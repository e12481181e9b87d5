"""Paired cluster bootstrap by dialogue (paper Appendix L, Table 21).

For baselines A and B and a metric m, the statistic is the difference of means over rows
(turns for a per-turn frame, dialogues for a per-dialogue frame)::

    Δ = Σ_d S_A,d / Σ_d N_A,d − Σ_d S_B,d / Σ_d N_B,d

where S_X,d is the sum of m over baseline X's rows of dialogue d and N_X,d their count.
Dialogues (clusters) are resampled with replacement: the indices are drawn once as
``numpy.random.default_rng(seed).choice(n, size=(n_boot, n))`` over the dialogue ids in sorted
order, turned into per-dialogue multiplicities W (n_boot × n), and every replicate statistic is
obtained from one matrix product ``W @ [S | N]``.  The same index matrix is reused for every
pair and metric, so all comparisons are evaluated on the same resamples.

Outputs: Δ on the full sample, the percentile 95 % CI of the replicates (``numpy.quantile``,
linear interpolation) and a two-sided bootstrap p-value obtained by inverting the percentile
interval, ``p = min(1, 2 (1 + min(#{Δ* ≤ 0}, #{Δ* ≥ 0})) / (n_boot + 1))``; its resolution is
therefore 2 / (n_boot + 1).

A bootstrap over too few clusters is not evidence: with one dialogue every replicate equals
the full-sample Δ, the interval collapses to a point and the p-value looks tiny.  Below
:data:`MIN_CLUSTERS` dialogues, or when the interval is degenerate (``ci_low == ci_high``),
a pair's ``verdict`` is ``"insufficient n"``, its p-value is NaN and it is never
``significant``; otherwise the verdict is ``"significant"`` (CI excludes 0) or
``"not resolved"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.stats.frames import require_baselines, require_columns, require_finite

#: Resamples per interval, every bootstrap's default (Appendix L: the paired cluster bootstrap
#: of Table 21 and the intervals beside the tables); a ``--n-boot``/``n_boot`` argument overrides it.
N_BOOT = 1000

#: Fewer dialogues than this and a cluster bootstrap says "insufficient n" (no p-value, no verdict).
MIN_CLUSTERS = 20

#: Table 21's comparisons as (A, B, metric); only these eight rows are printed in the paper
#: (the prose says "ten").  Keys follow the baseline registry and the per-turn metric columns.
TABLE21_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("llm_zero_shot", "tfidf", "recall@1"),
    ("llm_zero_shot", "tfidf", "mrr"),
    ("rag_citation", "llm_zero_shot", "cgs"),
    ("rag_citation", "llm_zero_shot", "gs"),
    ("dense", "tfidf", "cgs"),
    ("spatial", "tfidf", "cd"),
    ("mrs", "tfidf", "recall@1"),
    ("dst", "llm_zero_shot", "recall@1"),
)


def bootstrap_indices(n: int, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Cluster indices of every replicate, shape (n_boot, n): ``default_rng(seed).choice(n, (n_boot, n))``."""
    if n < 1 or n_boot < 1:
        raise ValueError(f"bootstrap needs n ≥ 1 clusters and n_boot ≥ 1 (got n={n}, n_boot={n_boot})")
    return np.random.default_rng(seed).choice(n, size=(n_boot, n), replace=True)


def resample_weights(indices: np.ndarray, n: int) -> np.ndarray:
    """Multiplicity of each cluster in each replicate, shape (n_boot, n), as float64."""
    n_boot = indices.shape[0]
    flat = (indices + (np.arange(n_boot) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)


def _cluster_totals(
    frame: pd.DataFrame, pairs: Sequence[tuple[str, str, str]], source: str
) -> tuple[np.ndarray, dict[tuple[str, str], np.ndarray], dict[str, np.ndarray]]:
    """Sorted dialogue ids, S per (baseline, metric) and N per baseline, each aligned to the ids."""
    require_columns(frame, ["dialogue_id", "baseline", *sorted({m for *_, m in pairs})], source)
    baselines = sorted({x for a, b, _ in pairs for x in (a, b)})
    require_baselines(frame, baselines, source)
    sub = frame[frame["baseline"].isin(baselines)]
    ids = np.array(sorted(sub["dialogue_id"].unique()))
    if ids.size == 0:
        raise ValueError(f"{source}: no rows to bootstrap")
    sums: dict[tuple[str, str], np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    for base in baselines:
        rows = sub[sub["baseline"] == base]
        have = set(rows["dialogue_id"])
        lacking = [d for d in ids if d not in have]
        if lacking:
            raise ValueError(
                f"{source}: baseline {base!r} has no rows for dialogue(s) {lacking[:5]} "
                f"({len(lacking)} in all); a paired bootstrap needs every dialogue"
            )
        grouped = rows.groupby("dialogue_id", sort=True)
        counts[base] = grouped.size().reindex(ids).to_numpy(float)
        for metric in sorted({m for a, b, m in pairs if base in (a, b)}):
            require_finite(rows, metric, source)
            sums[(base, metric)] = grouped[metric].sum().reindex(ids).to_numpy(float)
    return ids, sums, counts


def bootstrap_pairs(
    frame: pd.DataFrame,
    pairs: Sequence[tuple[str, str, str]] = TABLE21_PAIRS,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    source: str = "scores",
    min_clusters: int = MIN_CLUSTERS,
) -> pd.DataFrame:
    """Paired cluster bootstrap of each (A, B, metric) in ``pairs`` on a frame with ``baseline``.

    Returns one row per pair: ``a, b, metric, n_dialogues, delta, ci_low, ci_high, p_value,
    significant, verdict`` (see the module docstring) plus ``n_boot, seed, level``.
    """
    if not pairs:
        raise ValueError(f"{source}: no pairs to bootstrap")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    ids, sums, counts = _cluster_totals(frame, pairs, source)
    keys = sorted(sums)
    bases = sorted(counts)
    matrix = np.column_stack([sums[k] for k in keys] + [counts[b] for b in bases])
    weights = resample_weights(bootstrap_indices(ids.size, n_boot, seed), ids.size)
    reps = weights @ matrix
    col = {k: i for i, k in enumerate(keys)} | {b: len(keys) + i for i, b in enumerate(bases)}
    full = matrix.sum(axis=0)
    rows = []
    for a, b, metric in pairs:
        ia, ib, na, nb = col[(a, metric)], col[(b, metric)], col[a], col[b]
        delta = full[ia] / full[na] - full[ib] / full[nb]
        star = reps[:, ia] / reps[:, na] - reps[:, ib] / reps[:, nb]
        lo, hi = np.quantile(star, [(1 - level) / 2, (1 + level) / 2])
        tail = min(int((star <= 0).sum()), int((star >= 0).sum()))
        sufficient = ids.size >= min_clusters and hi > lo
        separated = bool(lo > 0 or hi < 0)
        rows.append(
            {
                "a": a,
                "b": b,
                "metric": metric,
                "n_dialogues": int(ids.size),
                "delta": float(delta),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "p_value": min(1.0, 2 * (1 + tail) / (n_boot + 1)) if sufficient else float("nan"),
                "significant": sufficient and separated,
                "verdict": ("significant" if separated else "not resolved") if sufficient else "insufficient n",
                "n_boot": int(n_boot),
                "seed": int(seed),
                "level": float(level),
            }
        )
    return pd.DataFrame(rows)


def paired_bootstrap(
    frame: pd.DataFrame,
    a: str,
    b: str,
    metric: str,
    n_boot: int = N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    source: str = "scores",
) -> dict:
    """One comparison of :func:`bootstrap_pairs` as a dict."""
    return bootstrap_pairs(frame, [(a, b, metric)], n_boot, seed, level, source).iloc[0].to_dict()
