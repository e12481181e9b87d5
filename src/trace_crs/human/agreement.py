"""Inter-annotator agreement of the human study (seed 000 §7.1, App. K.2; Tables 11–13).

* :func:`reliability_data` — the annotators × units matrix Krippendorff's α reads (NaN where an
  annotator did not rate a unit).  Units per scale: ``info`` / ``nat`` — one per item (interval
  level); ``cite`` — one per (item, quoted phrase), labels coded 0 supported, 1 partial, 2 not
  supported (nominal); ``err`` — one per (item, error category other than "no_errors"), checked
  1 or not 0 (nominal: the checklist is multi-label, so each category is a binary unit).
* :func:`alphas` — α of the four scales with the ``krippendorff`` package, and their mean
  (the paper's "mean α"); undefined (one annotator, one value in the domain) → NaN.
* :func:`leave_out` — α after dropping every set of ``k`` annotators (k = 1: leave-one-out,
  k = 2: leave-pair-out; App. K.2 Table 13b).
* :func:`annotator_profile` — per annotator (Table 13): mean informativeness and naturalness;
  "dev." = mean over items of |own rating − mean of the other annotators on that item|; flag
  rate = share of items with at least one error category checked; avg. cats = mean number of
  error categories checked per item ("no_errors" counts 0).
* :func:`task2_agreement` — Task 2: mean pairwise Jaccard of the selected POI sets over every
  annotator pair of every dialogue, and the number of dialogues where one POI was chosen by a
  strict majority (> half) of that dialogue's annotators.
"""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
import pandas as pd

from trace_crs.human.labels import CITATION_LABELS, ERROR_CATEGORIES

SCALES: dict[str, str] = {"info": "interval", "nat": "interval", "cite": "nominal", "err": "nominal"}
REAL_ERRORS = tuple(c for c in ERROR_CATEGORIES if c != "no_errors")
_CODE = {label: i for i, label in enumerate(CITATION_LABELS)}


def _long(t1: pd.DataFrame, scale: str) -> pd.DataFrame:
    """``annotator, unit, value`` rows of one scale."""
    if scale in ("info", "nat"):
        col = "informativeness" if scale == "info" else "naturalness"
        return pd.DataFrame({"annotator": t1["annotator"], "unit": t1["item_id"], "value": t1[col].astype(float)})
    rows = []
    for ann, item, quotes, errors in t1[["annotator", "item_id", "quotes", "errors"]].itertuples(index=False):
        if scale == "cite":
            rows += [(ann, f"{item}#{i}", float(_CODE[q])) for i, q in enumerate(quotes)]
        else:
            rows += [(ann, f"{item}#{c}", float(c in errors)) for c in REAL_ERRORS]
    return pd.DataFrame(rows, columns=["annotator", "unit", "value"])


def reliability_data(t1: pd.DataFrame, scale: str) -> np.ndarray:
    """Annotators (sorted) × units (sorted) matrix of ``scale``; NaN where missing."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; use {sorted(SCALES)}")
    wide = _long(t1, scale).pivot(index="annotator", columns="unit", values="value")
    return wide.sort_index().sort_index(axis=1).to_numpy(float)


def alpha(matrix: np.ndarray, level: str) -> float:
    """Krippendorff's α (``krippendorff.alpha``); NaN when undefined."""
    if matrix.shape[0] < 2 or matrix.shape[1] == 0:
        return float("nan")
    values = matrix[~np.isnan(matrix)]
    if np.unique(values).size < 2:
        return float("nan")  # one value in the domain: expected disagreement 0
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))


def alphas(t1: pd.DataFrame) -> dict[str, float]:
    """``alpha_info, alpha_nat, alpha_cite, alpha_err, mean_alpha`` (mean over the defined ones)."""
    out = {f"alpha_{s}": alpha(reliability_data(t1, s), level) for s, level in SCALES.items()}
    defined = [v for v in out.values() if np.isfinite(v)]
    out["mean_alpha"] = float(np.mean(defined)) if defined else float("nan")
    return out


def leave_out(t1: pd.DataFrame, k: int) -> pd.DataFrame:
    """α with every ``k``-subset of annotators dropped: ``dropped, n_annotators, alpha_*, mean_alpha,
    mean_alpha_rel_change`` (relative to all annotators)."""
    annotators = sorted(t1["annotator"].unique())
    if k < 1 or len(annotators) - k < 2:
        raise ValueError(f"leave-{k}-out needs at least {k + 2} annotators (have {len(annotators)})")
    full = alphas(t1)["mean_alpha"]
    rows = []
    for drop in combinations(annotators, k):
        a = alphas(t1[~t1["annotator"].isin(drop)])
        rel = (a["mean_alpha"] - full) / abs(full) if np.isfinite(full) and full != 0 else float("nan")
        rows.append(
            {"dropped": " + ".join(drop), "n_annotators": len(annotators) - k, **a, "mean_alpha_rel_change": rel}
        )
    return pd.DataFrame(rows)


def annotator_profile(t1: pd.DataFrame) -> pd.DataFrame:
    """Table 13: ``annotator, n_items, info_mean, nat_mean, info_dev, nat_dev, flag_rate, avg_cats``."""
    rows = []
    for ann, own in t1.groupby("annotator", sort=True):
        others = t1[t1["annotator"] != ann]
        devs = {}
        for col in ("informativeness", "naturalness"):
            ref = others.groupby("item_id")[col].mean()
            mine = own.set_index("item_id")[col]
            shared = mine.index.intersection(ref.index)
            devs[col] = float((mine[shared] - ref[shared]).abs().mean()) if len(shared) else float("nan")
        n_cats = own["errors"].map(lambda e: sum(c in e for c in REAL_ERRORS))
        rows.append(
            {
                "annotator": ann,
                "n_items": int(len(own)),
                "info_mean": float(own["informativeness"].mean()),
                "nat_mean": float(own["naturalness"].mean()),
                "info_dev": devs["informativeness"],
                "nat_dev": devs["naturalness"],
                "flag_rate": float((n_cats > 0).mean()),
                "avg_cats": float(n_cats.mean()),
            }
        )
    return pd.DataFrame(rows)


def jaccard(a: set[str], b: set[str]) -> float:
    """|A ∩ B| / |A ∪ B| (1.0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def task2_agreement(t2: pd.DataFrame) -> dict[str, float]:
    """``mean_jaccard, n_pairs, n_dialogues, n_strict_majority, n_responses`` of Task 2."""
    sims: list[float] = []
    majority = 0
    for _, group in t2.groupby("dialogue_id", sort=True):
        sets = [set(p) for p in group["pois"]]
        sims += [jaccard(a, b) for a, b in combinations(sets, 2)]
        counts = pd.Series([p for s in sets for p in s]).value_counts()
        majority += int(len(counts) > 0 and counts.iloc[0] > len(sets) / 2)
    return {
        "mean_jaccard": float(np.mean(sims)) if sims else float("nan"),
        "n_pairs": len(sims),
        "n_dialogues": int(t2["dialogue_id"].nunique()),
        "n_strict_majority": majority,
        "n_responses": int(len(t2)),
    }
