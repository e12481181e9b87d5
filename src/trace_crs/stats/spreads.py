"""Descriptive per-turn spreads (paper Appendix L, Table 20).

Per baseline and metric: mean and standard deviation (ddof = 1) over system turns.  Caveat
(:data:`CAVEAT`): turns of one dialogue are correlated, so the naive standard error
``sd / sqrt(n_turns)`` understates uncertainty.  To show by how much, the table adds the
dialogue-clustered (CR1) standard error of the turn mean ȳ = Σ_d S_d / Σ_d N_d,
``se_c² = G/(G−1) · Σ_d (S_d − ȳ N_d)² / (Σ_d N_d)²`` over G dialogues, and the design
effect ``(se_c / se_naive)²``.  Inference uses the cluster bootstrap, not these columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from trace_crs.stats.frames import require_columns, require_finite

CAVEAT = (
    "descriptive only: turns within a dialogue are correlated, so sd/sqrt(n_turns) "
    "understates uncertainty; use the dialogue cluster bootstrap for inference"
)


def per_turn_spread(
    per_turn: pd.DataFrame, metrics: Sequence[str] = ("bleu4", "gs", "cd"), source: str = "per-turn scores"
) -> pd.DataFrame:
    """``baseline, metric, n_turns, n_dialogues, mean, sd, se_naive, se_cluster, design_effect``."""
    require_columns(per_turn, ["dialogue_id", "baseline", *metrics], source)
    rows = []
    for base, frame in per_turn.groupby("baseline", sort=True):
        for metric in metrics:
            require_finite(frame, metric, source)
            y = frame[metric].to_numpy(float)
            sums = frame.groupby("dialogue_id")[metric].agg(["sum", "size"]).to_numpy(float)
            n, g = y.size, sums.shape[0]
            mean = y.mean()
            sd = y.std(ddof=1) if n > 1 else np.nan
            resid = sums[:, 0] - mean * sums[:, 1]
            se_c = np.sqrt(g / (g - 1) * (resid**2).sum()) / n if g > 1 else np.nan
            se_n = sd / np.sqrt(n)
            rows.append(
                {
                    "baseline": base,
                    "metric": metric,
                    "n_turns": n,
                    "n_dialogues": g,
                    "mean": mean,
                    "sd": sd,
                    "se_naive": se_n,
                    "se_cluster": se_c,
                    "design_effect": (se_c / se_n) ** 2 if se_n > 0 else np.nan,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "baseline",
            "metric",
            "n_turns",
            "n_dialogues",
            "mean",
            "sd",
            "se_naive",
            "se_cluster",
            "design_effect",
        ],
    )
