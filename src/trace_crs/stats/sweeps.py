"""Threshold sweeps: fuzzy GS threshold (Table 16), spatial km (Table 18), PC window, NLI threshold.

A sweep re-scores at each setting through ``source``: either a mapping {setting: frame} of
precomputed score frames or a callable ``setting -> frame`` (e.g. a closure over
``trace_crs.metrics.grounding.grounding_score`` with ``threshold=t``).  Each frame has a
``baseline`` column and the metric column.  The value is the mean of the metric per baseline
over rows where it is defined (``n`` counts them), as in ARCHITECTURE.md §5.  Per setting the
table adds ``delta_vs_default`` and ``rank_rho_vs_default``: Spearman ρ between the baselines'
values at that setting and at the default (NaN with < 2 baselines or constant values).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from trace_crs.config import ScoreConfig
from trace_crs.stats.frames import require_columns

ScoreSource = Mapping[Hashable, pd.DataFrame] | Callable[[Hashable], pd.DataFrame]

FUZZY_THRESHOLDS: tuple[Hashable, ...] = (0.70, 0.80, 0.90, "exact")
SPATIAL_KM: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 5.0)
PC_WINDOWS: tuple[int, ...] = (20, 40, 80, 160)  # characters; 80 is the paper default (App. J)
NLI_THRESHOLDS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7)


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(stats.spearmanr(x, y)[0])


def threshold_sweep(
    source: ScoreSource, settings: Sequence[Hashable], metric: str, default: Hashable, parameter: str
) -> pd.DataFrame:
    """``parameter, setting, baseline, value, n, delta_vs_default, rank_rho_vs_default``."""
    if default not in settings:
        raise ValueError(f"{parameter} sweep: default {default!r} is not among the settings {list(settings)}")
    means = {}
    for s in settings:
        frame = source[s] if isinstance(source, Mapping) else source(s)
        require_columns(frame, ["baseline", metric], f"{parameter}={s!r} scores")
        values = pd.to_numeric(frame[metric], errors="raise")
        means[s] = values.groupby(frame["baseline"]).agg(["mean", "count"]).sort_index()
    base = means[default]["mean"]
    rows = []
    for s in settings:
        table = means[s]
        if list(table.index) != list(base.index):
            raise ValueError(
                f"{parameter} sweep: baselines at {s!r} {list(table.index)} differ from "
                f"the default's {list(base.index)}"
            )
        rho = _spearman(table["mean"].to_numpy(float), base.to_numpy(float))
        for name, row in table.iterrows():
            rows.append(
                {
                    "parameter": parameter,
                    "setting": s,
                    "baseline": name,
                    "value": float(row["mean"]),
                    "n": int(row["count"]),
                    "delta_vs_default": float(row["mean"] - base[name]),
                    "rank_rho_vs_default": rho,
                }
            )
    return pd.DataFrame(rows)


def fuzzy_threshold_sensitivity(
    source: ScoreSource, settings: Sequence[Hashable] = FUZZY_THRESHOLDS, metric: str = "gs"
) -> pd.DataFrame:
    """GS at fuzzy thresholds 70/80/90 % and exact match (Table 16); default 0.80."""
    return threshold_sweep(source, settings, metric, ScoreConfig.fuzzy_threshold, "fuzzy_threshold")


def spatial_threshold_sensitivity(
    source: ScoreSource, settings: Sequence[float] = SPATIAL_KM, metric: str = "spatial_coherence"
) -> pd.DataFrame:
    """Spatial coherence at 1–5 km (Table 18); default 2 km."""
    return threshold_sweep(source, settings, metric, 2.0, "spatial_km")


def pc_window_sensitivity(
    source: ScoreSource, settings: Sequence[int] = PC_WINDOWS, metric: str = "pc"
) -> pd.DataFrame:
    """Provenance coverage at citation windows (characters); default 80 (App. J)."""
    return threshold_sweep(source, settings, metric, 80, "pc_window")


def nli_threshold_sensitivity(
    source: ScoreSource, settings: Sequence[float] = NLI_THRESHOLDS, metric: str = "entailment"
) -> pd.DataFrame:
    """Entailment grounding at NLI thresholds 0.3–0.7; default 0.5 (App. L)."""
    return threshold_sweep(source, settings, metric, 0.5, "nli_threshold")


def bimodality(probs: pd.DataFrame, low: float = 0.3, high: float = 0.7, column: str = "prob") -> pd.DataFrame:
    """Per baseline, how many claim probabilities a 0.3–0.7 threshold move could flip.

    ``share_low`` (p < low), ``share_borderline`` (low ≤ p < high), ``share_high`` (p ≥ high),
    and Sarle's bimodality coefficient b = (g² + 1) / (κ + 3 (n−1)² / ((n−2)(n−3))) with g the
    bias-corrected skewness and κ the bias-corrected excess kurtosis (b > 5/9 suggests
    bimodality; NaN for n < 4 or constant input).
    """
    require_columns(probs, ["baseline", column], "claim probabilities")
    p_all = pd.to_numeric(probs[column], errors="raise")
    if p_all.isna().any() or ((p_all < 0) | (p_all > 1)).any():
        i = int(np.flatnonzero(p_all.isna() | (p_all < 0) | (p_all > 1))[0])
        raise ValueError(
            f"claim probabilities: row {probs.index[i]!r} field {column!r} = {probs[column].iloc[i]!r}; "
            "expected a probability in [0, 1]"
        )
    rows = []
    for name, p in p_all.groupby(probs["baseline"], sort=True):
        x = p.to_numpy(float)
        n = x.size
        b = np.nan
        if n >= 4 and np.ptp(x) > 0:
            g = stats.skew(x, bias=False)
            k = stats.kurtosis(x, bias=False)
            b = (g**2 + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
        rows.append(
            {
                "baseline": name,
                "n_claims": n,
                "share_low": float((x < low).mean()),
                "share_borderline": float(((x >= low) & (x < high)).mean()),
                "share_high": float((x >= high).mean()),
                "sarle_b": float(b),
            }
        )
    return pd.DataFrame(rows)
