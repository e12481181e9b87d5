"""Does the judge agree with people?  Judge configurations against human ratings (issue 44).

On a human-labelled development set (CRSArena-Eval, :mod:`trace_crs.judge.crsarena`):

* :func:`split` — a seeded half of the conversations, stratified by system (each system's
  conversations are permuted with the seed and the first ⌈n/2⌉ go to *selection*), the rest
  *reporting*.  Configurations are chosen on the selection half only and reported on the other.
* :func:`rank_agreement` — Spearman ρ and Kendall τ_b of a score against a human aspect with
  95 % percentile bootstrap intervals (pairs resampled, seeded; vectorised over resamples).
* :func:`length_floor` — the words of the system's turns, a score that knows nothing of quality;
  :func:`learned_floor` — a small learned scorer: ridge regression on MiniLM embeddings of the
  system's turns, cross-fitted over the two halves (fit on one, predict the other), so every
  prediction is out of sample.  A judge at or below these floors measures length or surface
  features, not quality.
* :func:`beyond_length` — what a score says about people once length is known: its Spearman ρ
  with the length floor and its partial Spearman ρ with the human aspect given length (the
  Pearson partial correlation of the ranks), with a bootstrap interval.  A judge whose agreement
  vanishes given length measures length.
* :func:`choose` — the configuration with the highest ρ with the overall impression on the
  selection half (ties: the order the candidates file lists them, cheapest first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

HALVES = ("selection", "reporting", "all")


def split(ids_by_system: Mapping[str, Sequence[str]], seed: int) -> dict[str, str]:
    """``{conversation id: "selection" | "reporting"}`` (module docstring)."""
    rng = np.random.default_rng(seed)
    out: dict[str, str] = {}
    for system in sorted(ids_by_system):
        ids = sorted(ids_by_system[system])
        order = [ids[i] for i in rng.permutation(len(ids))]
        half = (len(ids) + 1) // 2
        out.update({i: "selection" for i in order[:half]})
        out.update({i: "reporting" for i in order[half:]})
    return out


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman ρ of each row pair of ``x`` and ``y`` (shape (B, n)): Pearson's r of the average
    ranks; NaN for a row with a constant side."""
    rx, ry = stats.rankdata(x, axis=1), stats.rankdata(y, axis=1)
    rx, ry = rx - rx.mean(axis=1, keepdims=True), ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def kendall_rows(x: np.ndarray, y: np.ndarray, chunk: int = 64) -> np.ndarray:
    """Kendall τ_b of each row pair: Σ sign(Δx)·sign(Δy) / √(Σ|sign Δx| · Σ|sign Δy|) over all
    pairs (ties count in neither the numerator nor their side's denominator)."""
    out = np.empty(len(x))
    for i in range(0, len(x), chunk):
        a, b = x[i : i + chunk], y[i : i + chunk]
        sa, sb = np.sign(a[:, :, None] - a[:, None, :]), np.sign(b[:, :, None] - b[:, None, :])
        den = np.sqrt(np.abs(sa).sum(axis=(1, 2)) * np.abs(sb).sum(axis=(1, 2)))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[i : i + chunk] = np.where(den > 0, (sa * sb).sum(axis=(1, 2)) / np.where(den > 0, den, 1), np.nan)
    return out


def rank_agreement(
    score: Sequence[float], human: Sequence[float], n_boot: int, seed: int, tau_interval: bool = True
) -> dict[str, float]:
    """n, Spearman ρ and Kendall τ_b with 95 % percentile bootstrap intervals (pairs resampled
    with ``default_rng(seed)``; resamples with a constant side are left out; τ's interval only with
    ``tau_interval``: its O(n²) resamples cost seconds each).  NaN where undefined: fewer than 4
    pairs or a constant side (a judge that gives every conversation one score)."""
    x, y = np.asarray(score, dtype=float), np.asarray(human, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out: dict[str, float] = {"n": int(len(x))}
    if len(x) < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {**out, **dict.fromkeys(("rho", "rho_lo", "rho_hi", "tau", "tau_lo", "tau_hi"), float("nan"))}
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
    for name, fn in (("rho", spearman_rows), ("tau", kendall_rows)):
        out[name] = float(fn(x[None, :], y[None, :])[0])
        if name == "tau" and not tau_interval:
            out["tau_lo"] = out["tau_hi"] = float("nan")
            continue
        boot = fn(x[idx], y[idx])
        boot = boot[np.isfinite(boot)]
        out[f"{name}_lo"], out[f"{name}_hi"] = (
            (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))) if len(boot) else (np.nan, np.nan)
        )
    return out


def partial_spearman_rows(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Partial Spearman ρ of ``x`` and ``y`` given ``z``, row by row (shape (B, n)):
    (ρxy − ρxz·ρyz) / √((1 − ρxz²)(1 − ρyz²)); NaN where a side is constant or ``z`` explains it."""
    xy, xz, yz = spearman_rows(x, y), spearman_rows(x, z), spearman_rows(y, z)
    den = np.sqrt((1 - xz**2) * (1 - yz**2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 1e-12, (xy - xz * yz) / np.where(den > 1e-12, den, 1), np.nan)


def beyond_length(
    score: Sequence[float], human: Sequence[float], length: Sequence[float], n_boot: int, seed: int
) -> dict[str, float]:
    """n, Spearman ρ of ``score`` with ``length``, and the partial Spearman ρ of ``score`` with
    ``human`` given ``length`` with its 95 % percentile bootstrap interval (triples resampled with
    ``default_rng(seed)``); NaN where undefined (fewer than 4 triples, a constant side)."""
    x, y, z = (np.asarray(v, dtype=float) for v in (score, human, length))
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    x, y, z = x[keep], y[keep], z[keep]
    out: dict[str, float] = {"n": int(len(x))}
    if len(x) < 4 or min(np.ptp(x), np.ptp(y), np.ptp(z)) == 0:
        return {**out, **dict.fromkeys(("rho_length", "partial", "partial_lo", "partial_hi"), float("nan"))}
    out["rho_length"] = float(spearman_rows(x[None, :], z[None, :])[0])
    out["partial"] = float(partial_spearman_rows(x[None, :], y[None, :], z[None, :])[0])
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
    boot = partial_spearman_rows(x[idx], y[idx], z[idx])
    boot = boot[np.isfinite(boot)]
    out["partial_lo"], out["partial_hi"] = (
        (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))) if len(boot) else (np.nan, np.nan)
    )
    return out


def length_floor(system_words: pd.Series) -> pd.Series:
    """The length floor's score: the system turns' word count, as is."""
    return system_words.astype(float)


def learned_floor(texts: pd.Series, human: pd.Series, half: pd.Series, seed: int) -> pd.Series:
    """Out-of-sample scores of a ridge regression on MiniLM embeddings of ``texts`` (the system's
    turns), fit on one half's human ``overall`` and applied to the other (both directions).
    ``texts``, ``human`` and ``half`` share one index."""
    from sklearn.linear_model import RidgeCV

    from trace_crs.lm.embeddings import embed

    features = embed([str(t) for t in texts])
    out = pd.Series(np.nan, index=texts.index, dtype=float)
    for fit_on, apply_to in (("selection", "reporting"), ("reporting", "selection")):
        fit, use = (half == fit_on).to_numpy(), (half == apply_to).to_numpy()
        if fit.sum() < 4 or not use.any():
            continue
        model = RidgeCV(alphas=np.logspace(-2, 3, 12)).fit(features[fit], human.to_numpy(float)[fit])
        out[use] = model.predict(features[use])
    return out


def agreement_table(
    scores: Mapping[str, pd.Series],
    human: pd.DataFrame,
    aspects: Sequence[str],
    half: pd.Series,
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    """One row per (score, aspect, half): n, ρ, τ and their intervals (τ's interval for the first
    aspect, the target, only).  ``scores`` and ``human`` are indexed by conversation id; ``half``
    maps an id to selection / reporting."""
    rows = []
    for name, score in scores.items():
        for aspect in aspects:
            for which in HALVES:
                ids = half.index if which == "all" else half.index[half == which]
                s, h = score.reindex(ids), human[aspect].reindex(ids)
                got = rank_agreement(s, h, n_boot, seed, tau_interval=aspect == aspects[0])
                rows.append({"score": name, "aspect": aspect, "half": which, **got})
    return pd.DataFrame(rows)


def choose(table: pd.DataFrame, candidates: Sequence[str], aspect: str) -> str:
    """The candidate with the highest selection-half ρ on ``aspect`` (NaN counts as lowest; ties:
    the earlier candidate)."""
    sel = table[(table["half"] == "selection") & (table["aspect"] == aspect)].set_index("score")["rho"]
    best, best_rho = candidates[0], -np.inf
    for c in candidates:
        rho = float(sel.get(c, np.nan))
        if np.isfinite(rho) and rho > best_rho:
            best, best_rho = c, rho
    return best
