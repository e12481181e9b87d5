"""Paired t-tests and correlations with p-values and Fisher-z CIs (paper App. K.3, Table 15).

* :func:`paired_t` — per-dialogue paired t-test (``scipy.stats.ttest_rel``) of baseline A vs B
  on a per-dialogue metric; dialogues where either value is undefined (NaN) are excluded and
  counted in ``n_excluded``.
* :func:`correlations` — Pearson r, Spearman ρ and Kendall τ-b (scipy) with two-sided p-values
  and a Fisher-z interval ``tanh(atanh(r) ± z_{(1+level)/2} · se)`` where se is
  1/√(n−3) (Pearson), √(1.06/(n−3)) (Spearman) and √(0.437/(n−4)) (Kendall), after
  Fieller, Hartley & Pearson (1957).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from trace_crs.stats.frames import require_baselines, require_columns

_SE = {
    "pearson": lambda n: np.sqrt(1 / (n - 3)),
    "spearman": lambda n: np.sqrt(1.06 / (n - 3)),
    "kendall": lambda n: np.sqrt(0.437 / (n - 4)),
}
_TEST = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def fisher_ci(r: float, n: int, method: str = "pearson", level: float = 0.95) -> tuple[float, float]:
    """Fisher-z confidence interval of a correlation (NaN when n is too small or |r| = 1)."""
    if n <= (4 if method == "kendall" else 3) or not np.isfinite(r) or abs(r) >= 1:
        return (np.nan, np.nan)
    half = stats.norm.ppf((1 + level) / 2) * _SE[method](n)
    z = np.arctanh(r)
    return (float(np.tanh(z - half)), float(np.tanh(z + half)))


def correlations(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    methods: Sequence[str] = ("pearson", "spearman", "kendall"),
    level: float = 0.95,
) -> pd.DataFrame:
    """``method, r, p_value, n, ci_low, ci_high`` per method; constant input gives NaN r and p."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape:
        raise ValueError(f"correlations: x and y differ in length ({x.size} vs {y.size})")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("correlations: NaN in input; drop undefined pairs explicitly first")
    rows = []
    for method in methods:
        if method not in _TEST:
            raise ValueError(f"correlations: unknown method {method!r}; use {sorted(_TEST)}")
        if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            r, p = np.nan, np.nan
        else:
            res = _TEST[method](x, y)
            r, p = float(res[0]), float(res[1])
        lo, hi = fisher_ci(r, x.size, method, level)
        rows.append({"method": method, "r": r, "p_value": p, "n": int(x.size), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def paired_t(per_dialogue: pd.DataFrame, a: str, b: str, metric: str, source: str = "per-dialogue scores") -> dict:
    """Paired t-test of A vs B over dialogues: ``a, b, metric, n, n_excluded, mean_a, mean_b, mean_diff, t, p_value``."""
    require_columns(per_dialogue, ["dialogue_id", "baseline", metric], source)
    require_baselines(per_dialogue, [a, b], source)
    wide = per_dialogue[per_dialogue["baseline"].isin([a, b])].pivot(
        index="dialogue_id", columns="baseline", values=metric
    )
    defined = wide[[a, b]].notna().all(axis=1)
    pairs = wide[defined]
    if len(pairs) < 2:
        raise ValueError(f"{source}: fewer than 2 dialogues with {metric!r} defined for both {a!r} and {b!r}")
    res = stats.ttest_rel(pairs[a], pairs[b])
    return {
        "a": a,
        "b": b,
        "metric": metric,
        "n": int(len(pairs)),
        "n_excluded": int((~defined).sum()),
        "mean_a": float(pairs[a].mean()),
        "mean_b": float(pairs[b].mean()),
        "mean_diff": float((pairs[a] - pairs[b]).mean()),
        "t": float(res.statistic),
        "p_value": float(res.pvalue),
    }
