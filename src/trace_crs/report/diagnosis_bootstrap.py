"""The bootstrap behind the Deviations page's diagnosis (:mod:`trace_crs.report.diagnosis`, whose
docstring states the statistics): every variant's per-baseline means over the same resampled
dialogues, and each variant's gap and Kendall τ against the printed Table 5 with their closures
relative to the headline.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from trace_crs import DEFAULT_SEED
from trace_crs.report import compare, paper
from trace_crs.report.t05_headline import COLUMNS, PAPER, TABLE5_BASELINES
from trace_crs.stats.bootstrap import N_BOOT, bootstrap_indices, resample_weights
from trace_crs.stats.diagnosis import HEADLINE, TURN_METRICS


def paper_values() -> pd.DataFrame:
    """Printed Table 5 values of the non-LLM rows: index baseline key, columns our metric names."""
    table = paper.table(PAPER)
    table = table.assign(baseline=table["Baseline"].map(compare.key_of)).dropna(subset=["baseline"])
    table = table[table["baseline"].map(lambda b: b in TABLE5_BASELINES and compare.family(b) == "non_llm")]
    return table.set_index("baseline")[list(COLUMNS)].apply(paper.numeric).rename(columns=COLUMNS)


def _matrices(frame: pd.DataFrame, metric: str, baselines: list[str], dialogues: list[str]) -> tuple[np.ndarray, ...]:
    """(numerator, denominator) arrays [baseline, dialogue] of ``metric`` in one variant's rows."""
    f = frame.set_index(["baseline", "dialogue_id"])
    idx = pd.MultiIndex.from_product([baselines, dialogues])
    if metric in TURN_METRICS:
        num, den = f[f"{metric}_sum"].reindex(idx), f["n_turns"].reindex(idx)
    else:
        num, den = f[metric].reindex(idx), f[metric].reindex(idx).notna().astype(float)
    shape = (len(baselines), len(dialogues))
    return num.fillna(0.0).to_numpy(float).reshape(shape), den.fillna(0.0).to_numpy(float).reshape(shape)


def _tau(ours: np.ndarray, printed: np.ndarray) -> float:
    if len(ours) < 2 or np.ptp(ours) == 0:
        return float("nan")
    return float(kendalltau(ours, printed).statistic)


def _gap(ours: np.ndarray, printed: np.ndarray) -> float:
    return float(np.median(np.abs(ours - printed)))


def interval(x: np.ndarray) -> tuple[float, float]:
    """The 95 % percentile interval of the finite replicates ``x`` ((NaN, NaN) when none is)."""
    x = x[np.isfinite(x)]
    return (float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))) if x.size else (np.nan, np.nan)


class Diagnosis:
    """The bootstrap of every variant's per-baseline means over the same resampled dialogues."""

    def __init__(self, frame: pd.DataFrame, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> None:
        self.frame = frame
        self.printed = paper_values()
        self.baselines = [b for b in self.printed.index if b in set(frame["baseline"])]
        self.dialogues = sorted(set(frame["dialogue_id"]))
        self.n_boot, self.seed = n_boot, seed
        self.weights = resample_weights(bootstrap_indices(len(self.dialogues), n_boot, seed), len(self.dialogues))
        self._cache: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        self._stats: dict[tuple[Any, ...], tuple[float, np.ndarray]] = {}

    def means(self, variant: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(point [baseline], replicates [n_boot, baseline]) of ``metric`` under ``variant``."""
        key = (variant, metric)
        if key not in self._cache:
            num, den = _matrices(self.frame[self.frame["variant"] == variant], metric, self.baselines, self.dialogues)
            with np.errstate(invalid="ignore", divide="ignore"):
                point = num.sum(axis=1) / den.sum(axis=1)
                reps = (self.weights @ num.T) / (self.weights @ den.T)
            self._cache[key] = (point, reps)
        return self._cache[key]

    def _replicates(self, variant: str, metric: str, cols: tuple[int, ...], name: str) -> tuple[float, np.ndarray]:
        """(point, replicates) of the gap or τ of ``variant``; a variant whose means equal the
        headline's reuses the headline's (scipy's τ is the slow part)."""
        key = (variant, metric, cols, name)
        if key not in self._stats:
            point, reps = self.means(variant, metric)
            if variant != HEADLINE and np.array_equal(reps, self.means(HEADLINE, metric)[1], equal_nan=True):
                self._stats[key] = self._replicates(HEADLINE, metric, cols, name)
            else:
                fn = _gap if name == "gap" else _tau
                printed = self.printed.loc[[self.baselines[i] for i in cols], metric].to_numpy(float)
                idx = list(cols)
                self._stats[key] = (fn(point[idx], printed), np.array([fn(r[idx], printed) for r in reps]))
        return self._stats[key]

    def statistic(self, variant: str, metric: str, baselines: list[str]) -> dict[str, float]:
        """Gap, τ and their closures vs the headline, each with its interval."""
        cols = tuple(self.baselines.index(b) for b in baselines)
        out: dict[str, float] = {}
        for name in ("gap", "tau"):
            vp_, v = self._replicates(variant, metric, cols, name)
            hp_, h = self._replicates(HEADLINE, metric, cols, name)
            vp, hp = np.float64(vp_), np.float64(hp_)  # 0 / 0 → NaN (nothing to close), not an exception
            with np.errstate(invalid="ignore", divide="ignore"):
                closure = 1 - v / h if name == "gap" else (v - h) / (1 - h)
                cp = 1 - vp / hp if name == "gap" else (vp - hp) / (1 - hp)
            lo, hi = interval(v)
            clo, chi = interval(closure)
            out.update(
                {
                    name: float(vp),
                    f"{name}_low": lo,
                    f"{name}_high": hi,
                    f"{name}_closure": float(cp),
                    f"{name}_closure_low": clo,
                    f"{name}_closure_high": chi,
                }
            )
        return out
