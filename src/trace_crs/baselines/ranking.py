"""Turning per-candidate scores into a ranked list, with the rejected-POI demotion that every
Trace ranker applies (Appendix F: "hard penalty for explicitly rejected POIs").

Order: non-rejected candidates by descending score, then rejected ones by descending score.
Ties keep the candidate order the runner gave (a seeded shuffle of the pool, §4), so no POI
id or pool position is systematically favoured.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rank_by_score(
    candidates: Sequence[str], scores: Sequence[float] | np.ndarray, rejected: set[str] | frozenset[str] = frozenset()
) -> list[str]:
    """Candidates sorted by ``(is_rejected, -score)``, stable in candidate order.

    >>> rank_by_score(["a", "b", "c"], [1.0, 3.0, 3.0], {"b"})
    ['c', 'a', 'b']
    """
    if len(candidates) != len(scores):
        raise ValueError(f"{len(candidates)} candidates but {len(scores)} scores")
    values = np.asarray(scores, dtype=float)
    if np.isnan(values).any():
        raise ValueError(
            "NaN score for candidate(s) "
            + ", ".join(c for c, v in zip(candidates, values, strict=False) if np.isnan(v))
        )
    order = sorted(range(len(candidates)), key=lambda i: (candidates[i] in rejected, -values[i]))
    return [candidates[i] for i in order]


def minmax(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant vector (or an empty one) maps to zeros."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return arr
    span = arr.max() - arr.min()
    return (arr - arr.min()) / span if span > 0 else np.zeros_like(arr)
