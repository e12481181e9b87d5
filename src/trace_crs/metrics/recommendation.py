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

Which list is L (``ScoreConfig.ranked_list``).  App. J: Recall@k counts gold POIs "that appear
in the system's top-1 / top-3 prediction list for the current turn"; MRR's rank is "the position
of the first gold POI in the system's ranked list (1-indexed; defaults to 0 if no gold POI is in
the list)".  The default ``full`` reads the list as the system's whole ranking of the pool (which
always holds every gold POI, so MRR is never 0 there); ``response`` reads it as the POIs the
response *names*, in order of first mention (:func:`response_list`), a list that can miss the
gold — the reading the "defaults to 0" clause and the paper's below-chance Popularity R@3 allow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from trace_crs.metrics.quotes import blank_quotes

Ids = Sequence[str]


def dedup(ranked: Ids) -> list[str]:
    """Ranked ids without repeats (first occurrence kept)."""
    return list(dict.fromkeys(ranked))


RANKED_LISTS: tuple[str, ...] = ("full", "response")  # ScoreConfig.ranked_list values


def response_list(text: str, names: dict[str, str]) -> list[str]:
    """The ids of ``names`` ({id: POI name}) named in ``text``, in order of first mention.

    Names match case-insensitively on word boundaries, outside quoted review spans (a reviewer
    naming a place is not the system recommending it); where two names overlap at a position
    (``"Joe's"`` inside ``"Joe's Pizza"``) the longer one wins.  No name → ``[]``.
    """
    plain = blank_quotes(text).lower()
    hits = []
    for pid, name in names.items():
        if name.strip():
            pattern = r"(?<!\w)" + re.escape(name.strip().lower()) + r"(?!\w)"
            hits += [(m.start(), -len(name), pid, m.end()) for m in re.finditer(pattern, plain)]
    out: list[str] = []
    end = -1
    for start, _, pid, stop in sorted(hits):
        if start >= end:
            end = stop
            if pid not in out:
                out.append(pid)
    return out


def recall_at_k(gold: Sequence[Ids], ranked: Sequence[Ids], k: int) -> np.ndarray:
    """Recall@k per turn: fraction of the turn's gold POIs in the top-k."""
    return np.array(
        [len(set(g) & set(dedup(r)[:k])) / len(set(g)) if g else np.nan for g, r in zip(gold, ranked, strict=False)],
        dtype=float,
    )


def hit_at_k(gold: Sequence[Ids], ranked: Sequence[Ids], k: int) -> np.ndarray:
    """Hit@k per turn: 1 if any gold POI is in the top-k."""
    return np.array(
        [float(bool(set(g) & set(dedup(r)[:k]))) if g else np.nan for g, r in zip(gold, ranked, strict=False)],
        dtype=float,
    )


def reciprocal_rank(gold: Sequence[Ids], ranked: Sequence[Ids]) -> np.ndarray:
    """1 / (1-based rank of the first gold POI), 0 if no gold POI is ranked."""
    out = np.full(len(gold), np.nan)
    for i, (g, r) in enumerate(zip(gold, ranked, strict=False)):
        if g:
            gs = set(g)
            out[i] = next((1.0 / pos for pos, pid in enumerate(dedup(r), 1) if pid in gs), 0.0)
    return out


def multi_reference_recall_at_k(
    gold: Sequence[Ids], alternatives: Sequence[Ids], ranked: Sequence[Ids], k: int
) -> np.ndarray:
    """1 if the top-k holds a gold POI or an acceptable alternative, else 0, per turn (Appendix S:
    "counts a hit if the predicted top-k contains gold or any alternative; the denominator is
    unchanged" — a compare turn with two gold POIs is a hit at k = 1, not half of one)."""
    return np.array(
        [
            float(bool((set(g) | set(a)) & set(dedup(r)[:k]))) if g else np.nan
            for g, a, r in zip(gold, alternatives, ranked, strict=False)
        ],
        dtype=float,
    )


def recommended(ranked: Ids, n_gold: int) -> list[str]:
    """The POIs a predicted turn recommends: its top-max(1, n_gold) distinct ids."""
    return dedup(ranked)[: max(1, n_gold)]


def turn_hits(gold: Sequence[Ids], ranked: Sequence[Ids]) -> np.ndarray:
    """1 if the turn's recommended POIs (see :func:`recommended`) include a gold POI."""
    return np.array(
        [float(bool(set(g) & set(recommended(r, len(g))))) for g, r in zip(gold, ranked, strict=False)], dtype=float
    )
