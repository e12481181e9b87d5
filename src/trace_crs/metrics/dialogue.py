"""Dialogue-level recovery metrics (paper §6.3, Appendix J "Dialogue", Appendix N).

Inputs per dialogue: the hit flags of its scored (recommend/compare) turns in order — a
turn hits when the POIs it recommends include a gold POI
(:func:`trace_crs.metrics.recommendation.turn_hits`) — and, per rejection episode, the
index of its recovery turn.

* TSR = 1 if any scored turn hits, else 0.
* T2R = 1-based count of recommend/compare turns up to and including the first hit.  The
  paper leaves the never-hit case open; we charge it the dialogue's number of such turns
  + 1 ("not within the dialogue"), which keeps T2R finite, makes failures cost more than a
  last-turn hit, and matches the paper's pattern that low-TSR systems have the highest T2R.
  A dialogue without scored turns is NaN.
* Rejection Recovery = (# reject_and_refine episodes whose recovery turn hits) /
  (# episodes).  The recovery turn is the first system recommend/compare turn after the
  user's ``reject_and_refine`` turn; an episode with no later recommend/compare turn has no
  recovery opportunity and is left out; no episode → NaN.  The corpus value pools episodes,
  as the paper defines it ("fraction of reject_and_refine episodes…"): Σ recovered / Σ
  episodes over all dialogues (``recovery_hits`` / ``recovery_episodes`` of the per-dialogue
  frame), not the mean of per-dialogue rates, which would weight an episode of a
  one-rejection dialogue twice as much as one of a two-rejection dialogue.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from trace_crs.dialogues.schema import REC_ACTIONS

REJECT_ACTION = "reject_and_refine"
# Corpus metrics that pool events over dialogues: metric → (numerator, denominator) columns
# of the per-dialogue frame.  Aggregates and their cluster-bootstrap intervals both use them.
POOLED_RATIOS: dict[str, tuple[str, str]] = {"rejection_recovery": ("recovery_hits", "recovery_episodes")}


def task_success(hits: Sequence[float]) -> float:
    """1.0 if any scored turn hits gold, else 0.0 (NaN with no scored turn)."""
    return float(any(hits)) if len(hits) else float("nan")


def turns_to_first_hit(hits: Sequence[float]) -> float:
    """Index (1-based) of the first hitting turn; ``len(hits) + 1`` when none hits."""
    if not len(hits):
        return float("nan")
    idx = np.flatnonzero(np.asarray(hits, float) > 0)
    return float(idx[0] + 1) if idx.size else float(len(hits) + 1)


def recovery_turns(turns: Sequence[dict]) -> list[int]:
    """``turn_id`` of the recovery turn of each rejection episode that has one."""
    out = []
    for i, turn in enumerate(turns):
        if turn["role"] == "user" and turn["action"] == REJECT_ACTION:
            nxt = next((t["turn_id"] for t in turns[i + 1:]
                        if t["role"] == "system" and t["action"] in REC_ACTIONS), None)
            if nxt is not None:
                out.append(nxt)
    return out


def rejection_recovery(hit_by_turn: dict[int, float], recovery_turn_ids: Sequence[int]) -> float:
    """Fraction of episodes whose recovery turn hits; NaN with no episode."""
    if not recovery_turn_ids:
        return float("nan")
    return float(np.mean([hit_by_turn[t] for t in recovery_turn_ids]))
