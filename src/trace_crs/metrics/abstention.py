"""Abstention metrics (TravelBench's unsolvable subset, adapted): does a system decline the
requests no POI can satisfy, and only those?

A response *abstains* when it carries TravelBench's ``[Unsolved]`` marker (generative systems)
or, for a ranker, when its best candidate score is below a threshold τ.  Over items labelled
``unsolvable`` (positives) and ordinary solvable turns (negatives):

    precision = TP / (TP + FP)      recall = TP / (TP + FN)      F1 = 2PR / (P + R)
    false-abstention rate = FP / #solvable

with TP = abstentions on unsolvable items, FP = abstentions on solvable turns, FN = unsolvable
items answered.  Undefined ratios (no abstention at all, no unsolvable item) are NaN.
``tau_sweep`` traces the four numbers over thresholds for a ranker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from trace_crs.dialogues.unsolvable import UNSOLVED_RE as UNSOLVED


def abstains(text: str) -> bool:
    """Whether a response declines with the ``[Unsolved]`` marker."""
    return bool(UNSOLVED.search(text or ""))


def abstention_scores(
    abstained: Sequence[bool] | np.ndarray, unsolvable: Sequence[bool] | np.ndarray
) -> dict[str, float]:
    """Precision, recall, F1 and false-abstention rate (see the module docstring), with counts."""
    a, u = np.asarray(abstained, bool), np.asarray(unsolvable, bool)
    if a.shape != u.shape:
        raise ValueError(f"abstained and unsolvable differ in length ({a.size} vs {u.size})")
    tp, fp, fn = int((a & u).sum()), int((a & ~u).sum()), int((~a & u).sum())
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if tp else (0.0 if tp + fp and tp + fn else float("nan"))
    n_solvable = int((~u).sum())
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "false_abstention_rate": fp / n_solvable if n_solvable else float("nan"),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "n_unsolvable": int(u.sum()),
        "n_solvable": n_solvable,
    }


def tau_sweep(
    best_scores: Sequence[float] | np.ndarray,
    unsolvable: Sequence[bool] | np.ndarray,
    taus: Sequence[float] | np.ndarray,
) -> pd.DataFrame:
    """One row per τ: a ranker abstains where its best candidate score is below τ."""
    s = np.asarray(best_scores, float)
    rows = [{"tau": float(t), **abstention_scores(s < t, unsolvable)} for t in taus]
    return pd.DataFrame(rows)


def decline_scores(table: pd.DataFrame) -> pd.DataFrame:
    """Per generative system (``table``: ``baseline, unsolvable, reason, declined, fallback`` rows,
    :func:`trace_crs.baselines.abstain.decline_table`): precision, recall, F1 and false-abstention
    rate of its ``[Unsolved]`` answers, the counts, fallbacks, and the recall within each reason
    (``recall_<reason>``: share of that reason's items declined)."""
    rows = []
    for name, part in table.groupby("baseline", sort=True):
        by_reason = part[part["unsolvable"]].groupby("reason", sort=True)["declined"].mean()
        rows.append(
            {
                "baseline": name,
                **abstention_scores(part["declined"].tolist(), part["unsolvable"].tolist()),
                "n_fallbacks": int(part["fallback"].sum()),
                **{f"recall_{r}": float(v) for r, v in by_reason.items()},
            }
        )
    return pd.DataFrame(rows)
