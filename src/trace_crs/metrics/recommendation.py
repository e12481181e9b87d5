"""Recommendation quality per reference recommend/compare turn (Appendix J, Appendix S).

For a turn with gold set G (``gold_poi_ids``), acceptable alternatives A and a ranked list
L (duplicates dropped, first occurrence kept; L_k = its first k ids):

* Recall@k = |G ∩ L_k| / |G|;  Hit@k = 1[G ∩ L_k ≠ ∅];
* MRR = 1 / rank of the first gold id in L (1-based), 0 when none is ranked;
* Multi-Reference Recall@k = min(1, |(G ∪ A) ∩ L_k| / |G|): alternatives count as gold,
  the denominator |G| is unchanged, so a turn without alternatives reduces to Recall@k;
* the POIs a turn *recommends* are L_{|G|} (the top-1 for a recommend turn, the top-2 for a
  compare turn with two gold POIs); TSR, T2R, recovery and practical metrics use these.

A turn with an empty gold set has no defined recall/MRR: NaN.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

Ids = Sequence[str]


def dedup(ranked: Ids) -> list[str]:
    """Ranked ids without repeats (first occurrence kept)."""
    return list(dict.fromkeys(ranked))


def recall_at_k(gold: Sequence[Ids], ranked: Sequence[Ids], k: int) -> np.ndarray:
    """Recall@k per turn: fraction of the turn's gold POIs in the top-k."""
    return np.array([len(set(g) & set(dedup(r)[:k])) / len(set(g)) if g else np.nan
                     for g, r in zip(gold, ranked)], dtype=float)


def hit_at_k(gold: Sequence[Ids], ranked: Sequence[Ids], k: int) -> np.ndarray:
    """Hit@k per turn: 1 if any gold POI is in the top-k."""
    return np.array([float(bool(set(g) & set(dedup(r)[:k]))) if g else np.nan
                     for g, r in zip(gold, ranked)], dtype=float)


def reciprocal_rank(gold: Sequence[Ids], ranked: Sequence[Ids]) -> np.ndarray:
    """1 / (1-based rank of the first gold POI), 0 if no gold POI is ranked."""
    out = np.full(len(gold), np.nan)
    for i, (g, r) in enumerate(zip(gold, ranked)):
        if g:
            gs = set(g)
            out[i] = next((1.0 / pos for pos, pid in enumerate(dedup(r), 1) if pid in gs), 0.0)
    return out


def multi_reference_recall_at_k(gold: Sequence[Ids], alternatives: Sequence[Ids],
                                ranked: Sequence[Ids], k: int) -> np.ndarray:
    """1 if the top-k holds a gold POI or an acceptable alternative, else 0, per turn (Appendix S:
    "counts a hit if the predicted top-k contains gold or any alternative; the denominator is
    unchanged" — a compare turn with two gold POIs is a hit at k = 1, not half of one)."""
    return np.array([float(bool((set(g) | set(a)) & set(dedup(r)[:k]))) if g else np.nan
                     for g, a, r in zip(gold, alternatives, ranked)], dtype=float)


def recommended(ranked: Ids, n_gold: int) -> list[str]:
    """The POIs a predicted turn recommends: its top-max(1, n_gold) distinct ids."""
    return dedup(ranked)[:max(1, n_gold)]


def turn_hits(gold: Sequence[Ids], ranked: Sequence[Ids]) -> np.ndarray:
    """1 if the turn's recommended POIs (see :func:`recommended`) include a gold POI."""
    return np.array([float(bool(set(g) & set(recommended(r, len(g))))) for g, r in zip(gold, ranked)],
                    dtype=float)
