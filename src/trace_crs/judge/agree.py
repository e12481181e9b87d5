"""Meta-evaluation of a judge against human labels (seed 001 §7.1, App. B, E, F; Tables 7, 8, 22).

Inputs are the frames of :func:`trace_crs.judge.records.read_ratings` (one row per dialogue,
twelve factor columns, ``overall``), joined on ``dialogue_id``.

* :func:`factor_agreement` — per factor, on the dialogues both sides rated: quadratic-weighted
  kappa (``sklearn.metrics.cohen_kappa_score(weights="quadratic")`` over the labels 0–4, Table
  22), Spearman ρ, Kendall τ_b and Pearson r (scipy) with 95 % Fisher-z intervals; the row
  ``all factors`` pools every (dialogue, factor) pair.  Standard errors of z = atanh(r):
  Pearson 1/√(n−3); Spearman √(1.06/(n−3)) and Kendall √(0.437/(n−4)) (Fieller, Hartley &
  Pearson 1957).  Undefined (n too small, a constant side) → NaN, never 0.
* :func:`overall_agreement` — an overall judge score (``core_avg``, ``debate``) against the human
  overall label: Spearman and Kendall τ_b (Table 7) and Pearson, with the same intervals.
* :func:`coupling` — mean |τ_b| over the 66 factor pairs (§7.1.1); pairs with a constant
  factor are undefined and left out (their number is reported); :func:`coupling_matrix` — the
  full 12 × 12 τ_b matrix (Fig. 7).
* :func:`ranking_agreement` — per factor, Kendall τ and Spearman ρ between two judges'
  per-system means (:func:`trace_crs.metrics.judge.cross_judge_agreement`, Figs. 8–9).
* :func:`stability` — per factor, the mean over dialogues of the sample standard deviation
  (ddof=1) across repeated runs (App. B, Table 8).
* :func:`cost` — calls, tokens, cost and model seconds per transcript (App. E, Tables 20–21).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from trace_crs.judge.factors import FACTORS, SCORES
from trace_crs.judge.records import USAGE_KEYS
from trace_crs.metrics.judge import cross_judge_agreement

Z95 = float(stats.norm.ppf(0.975))
_SE = {
    "pearson": lambda n: 1 / np.sqrt(n - 3),
    "spearman": lambda n: np.sqrt(1.06 / (n - 3)),
    "kendall_tau_b": lambda n: np.sqrt(0.437 / (n - 4)),
}
_MIN_N = {"pearson": 4, "spearman": 4, "kendall_tau_b": 5}


def qwk(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> float:
    """Quadratic-weighted Cohen's kappa over the labels 0–4 (NaN when undefined)."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    if len(a) == 0 or (len(set(a)) == 1 and len(set(b)) == 1 and a[0] == b[0]):
        return float("nan")  # one label on both sides: expected disagreement 0
    return float(cohen_kappa_score(a, b, labels=list(SCORES), weights="quadratic"))


def fisher_ci(r: float, n: int, kind: str) -> tuple[float, float]:
    """95 % interval of a correlation by Fisher's z with the ``kind``'s standard error."""
    if not np.isfinite(r) or n < _MIN_N[kind]:
        return float("nan"), float("nan")
    z, half = np.arctanh(np.clip(r, -0.999999, 0.999999)), Z95 * _SE[kind](n)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def correlations(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> dict[str, float]:
    """Spearman, Kendall τ_b and Pearson with Fisher-z intervals (``<name>_lo`` / ``_hi``) and n."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    out: dict[str, float] = {"n": len(x)}
    constant = len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0
    fns = {
        "spearman": stats.spearmanr,
        "kendall_tau_b": lambda a, b: stats.kendalltau(a, b, variant="b"),
        "pearson": stats.pearsonr,
    }
    for name, fn in fns.items():
        r = float("nan") if constant else float(fn(x, y).statistic)
        out[name] = r
        out[f"{name}_lo"], out[f"{name}_hi"] = fisher_ci(r, len(x), name)
    return out


def _paired(judge: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    return judge.merge(human, on="dialogue_id", suffixes=("_j", "_h"), how="inner")


def factor_agreement(
    judge: pd.DataFrame, human: pd.DataFrame, qwk_reasons: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """One row per factor (+ ``all factors`` pooled): n, qwk and the three correlations.
    ``qwk_reasons`` (labels read through a mapping, :func:`trace_crs.judge.label_map.qwk_reasons`)
    names the factors whose human side is not on CoRE's five categories: their QWK, and the pooled
    one if any of them was rated, is NaN and a ``qwk_note`` column says why."""
    both = _paired(judge, human)
    pooled: tuple[list[float], list[float]]
    rows, pooled = [], ([], [])
    for name in FACTORS:
        ok = both[[f"{name}_j", f"{name}_h"]].dropna()
        # a judge's expected score (logprob mode) is a number in [0, 4]: QWK on its nearest category
        a, b = ok[f"{name}_j"].to_numpy(float), ok[f"{name}_h"].to_numpy(float)
        pooled[0].extend(a)
        pooled[1].extend(b)
        rows.append({"factor": name, "qwk": qwk(np.rint(a), np.rint(b)), **correlations(a, b)})
    rows.append({"factor": "all factors", "qwk": qwk(np.rint(pooled[0]), np.rint(pooled[1])), **correlations(*pooled)})
    if qwk_reasons is None:
        return pd.DataFrame(rows)
    rated = [str(r["factor"]) for r in rows[:-1] if r["factor"] in qwk_reasons and r["n"]]
    if rated:
        qwk_reasons = {
            **qwk_reasons,
            "all factors": f"pools factors not on CoRE's five categories ({', '.join(rated)})",
        }
    for r in rows:
        r["qwk_note"] = qwk_reasons.get(str(r["factor"]))
        if r["qwk_note"] is not None:
            r["qwk"] = float("nan")
    return pd.DataFrame(rows)


def several_annotators(human: pd.DataFrame) -> bool:
    """True when some dialogue carries labels of more than one annotator."""
    return "annotator" in human and bool(human["dialogue_id"].duplicated().any())


def mean_over_annotators(human: pd.DataFrame) -> pd.DataFrame:
    """One row per dialogue: each factor and ``overall`` averaged over its annotators (NaN skipped),
    ``system`` kept and ``n_annotators`` added.  A mean factor is compared by correlation as is and
    by QWK after rounding to the nearest label (``numpy.rint``) in :func:`factor_agreement`."""
    cols = [c for c in (*FACTORS, "overall") if c in human]
    g = human.groupby("dialogue_id", sort=True)
    out = g[cols].mean()
    out["system"] = g["system"].first()
    out["n_annotators"] = g.size()
    return out.reset_index()


def per_annotator(judge: pd.DataFrame, human: pd.DataFrame, table) -> pd.DataFrame:
    """``table(judge, labels of one annotator)`` for each annotator, stacked with an ``annotator`` column."""
    parts = [table(judge, part).assign(annotator=ann) for ann, part in human.groupby("annotator", sort=True)]
    return pd.concat(parts, ignore_index=True)


def overall_agreement(
    judge: pd.DataFrame,
    human: pd.DataFrame,
    scores: Sequence[str] = ("overall", "debate", "recall", "persuasiveness"),
) -> pd.DataFrame:
    """Each overall judge score (``overall`` = CoRE-Avg, ``debate``, and CoRE Table 7's
    conventional rows: ``recall``, the transcript's ground-truth recall, and ``persuasiveness``,
    :mod:`trace_crs.judge.persuasive`) against the human ``overall``; a conventional row is left
    out when no record carries it."""
    both = _paired(judge, human.rename(columns={"overall": "human_overall"}))
    rows = []
    for s in scores:
        col = s if s in both.columns else f"{s}_j"
        if col not in both.columns:
            continue
        ok = both[[col, "human_overall"]].dropna()
        if ok.empty and s in ("recall", "persuasiveness"):  # records without the field
            continue
        rows.append({"score": "core_avg" if s == "overall" else s, **correlations(ok[col], ok["human_overall"])})
    return pd.DataFrame(rows)


def _pair_tau(ratings: pd.DataFrame, a: str, b: str) -> float:
    """Kendall τ_b of two factors on the dialogues rating both (NaN: < 2 such, or a constant side)."""
    ok = ratings[[a, b]].dropna()
    if len(ok) >= 2 and ok[a].nunique() > 1 and ok[b].nunique() > 1:
        return float(stats.kendalltau(ok[a], ok[b], variant="b").statistic)
    return float("nan")


def coupling(ratings: pd.DataFrame) -> dict[str, float]:
    """Mean |τ_b| over the 66 factor pairs (each pair on the dialogues rating both)."""
    taus = [abs(t) for a, b in combinations(FACTORS, 2) if np.isfinite(t := _pair_tau(ratings, a, b))]
    return {
        "mean_abs_tau_b": float(np.mean(taus)) if taus else float("nan"),
        "n_pairs": len(taus),
        "n_undefined": 66 - len(taus),
    }


def coupling_matrix(ratings: pd.DataFrame) -> pd.DataFrame:
    """CoRE Fig. 7's full matrix: Kendall τ_b of every factor pair (12 × 12, diagonal 1; NaN
    where undefined), one row per factor with a ``factor`` column."""
    m = pd.DataFrame(np.eye(len(FACTORS)), index=list(FACTORS), columns=list(FACTORS))
    for a, b in combinations(FACTORS, 2):
        m.loc[a, b] = m.loc[b, a] = _pair_tau(ratings, a, b)
    return m.rename_axis("factor").reset_index()


def ranking_agreement(a: pd.DataFrame, b: pd.DataFrame, columns: Sequence[str] = (*FACTORS, "overall")) -> pd.DataFrame:
    """Per factor: Kendall τ / Spearman ρ between two judges' per-system mean scores."""
    rows = []
    for c in columns:
        ma, mb = (df.dropna(subset=[c]).groupby("system")[c].mean().to_dict() for df in (a, b))
        rows.append({"factor": c, **cross_judge_agreement(ma, mb)})
    return pd.DataFrame(rows)


def stability(runs: Sequence[pd.DataFrame], columns: Sequence[str] = (*FACTORS, "overall", "debate")) -> pd.DataFrame:
    """Per column: mean over dialogues of the across-run standard deviation (ddof=1), and the
    number of dialogues rated in at least two runs."""
    if len(runs) < 2:
        raise ValueError(f"stability needs at least two runs, got {len(runs)}")
    stacked = pd.concat([r.assign(_run=i) for i, r in enumerate(runs)], ignore_index=True)
    rows = []
    for c in columns:
        if c not in stacked.columns:
            continue
        sd = stacked.dropna(subset=[c]).groupby("dialogue_id")[c].agg(["std", "count"])
        sd = sd[sd["count"] >= 2]
        rows.append({"factor": c, "mean_sd": float(sd["std"].mean()) if len(sd) else float("nan"), "n": len(sd)})
    return pd.DataFrame(rows)


def cost(judged: pd.DataFrame) -> pd.DataFrame:
    """Mean calls, tokens, cost (USD) and model seconds per transcript, by mode."""
    cols = [k for k in USAGE_KEYS if k in judged.columns]
    out = judged.groupby(judged["mode"].fillna("?"))[cols].mean()
    out["total_tokens"] = out["prompt_tokens"] + out["completion_tokens"]
    out["n_transcripts"] = judged.groupby(judged["mode"].fillna("?")).size()
    return out.reset_index()
