"""Anti-gaming (Table 19) and grounding-metric independence (paper Appendix L).

* :func:`anti_gaming` — per baseline, Pearson r (scipy, two-sided p) between citation density
  and grounding score over its system turns; NaN r/p when either column is constant.
* :func:`metric_independence` — Spearman ρ between each pair of GS, CD, PC over all turns of
  the chosen baselines pooled.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from trace_crs.stats.frames import require_baselines, require_columns, require_finite


def anti_gaming(per_turn: pd.DataFrame, x: str = "cd", y: str = "gs", source: str = "per-turn scores") -> pd.DataFrame:
    """``baseline, n_turns, mean_<x>, mean_<y>, pearson_r, p_value, undefined`` per baseline; ``undefined``
    says why r has no value ("" where it has one): Pearson r needs 3 turns and both variables varying."""
    require_columns(per_turn, ["baseline", x, y], source)
    rows = []
    for base, f in per_turn.groupby("baseline", sort=True):
        require_finite(f, x, source)
        require_finite(f, y, source)
        a, b = f[x].to_numpy(float), f[y].to_numpy(float)
        constant = [name for name, v in ((x, a), (y, b)) if a.size and np.ptp(v) == 0]
        why = (
            "fewer than 3 turns"
            if a.size < 3
            else f"{' and '.join(n.upper() for n in constant)} the same on every turn"
            if constant
            else ""
        )
        r, p = (np.nan, np.nan) if why else stats.pearsonr(a, b)
        rows.append(
            {
                "baseline": base,
                "n_turns": a.size,
                f"mean_{x}": a.mean(),
                f"mean_{y}": b.mean(),
                "pearson_r": float(r),
                "p_value": float(p),
                "undefined": why,
            }
        )
    return pd.DataFrame(rows)


def metric_independence(
    per_turn: pd.DataFrame,
    metrics: Sequence[str] = ("gs", "cd", "pc"),
    baselines: Sequence[str] | None = None,
    source: str = "per-turn scores",
) -> pd.DataFrame:
    """``metric_a, metric_b, spearman_rho, p_value, n_turns`` over the pooled turns."""
    require_columns(per_turn, ["baseline", *metrics], source)
    frame = per_turn
    if baselines is not None:
        require_baselines(per_turn, baselines, source)
        frame = per_turn[per_turn["baseline"].isin(baselines)]
    for m in metrics:
        require_finite(frame, m, source)
    rows = []
    for a, b in combinations(metrics, 2):
        u, v = frame[a].to_numpy(float), frame[b].to_numpy(float)
        rho, p = (np.nan, np.nan) if u.size < 3 or np.ptp(u) == 0 or np.ptp(v) == 0 else stats.spearmanr(u, v)
        rows.append(
            {"metric_a": a, "metric_b": b, "spearman_rho": float(rho), "p_value": float(p), "n_turns": int(u.size)}
        )
    return pd.DataFrame(rows)
