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
  What is counted (``ScoreConfig.t2r_count``): App. J "counts system turns with recommend or
  compare actions until the first gold-POI hit" (``recommend``, the default); §6.3's name
  "Turns-to-First-Correct" also reads as every *system* turn, asking turns included
  (``system``), or every turn of the conversation, user turns included (``all``).  The
  position of the first hitting turn in that sequence is T2R; a never-hit dialogue is charged
  the sequence's length + 1.
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

from collections.abc import Sequence

import numpy as np

from trace_crs.dialogues.schema import REC_ACTIONS

REJECT_ACTION = "reject_and_refine"


def task_success(hits: Sequence[float]) -> float:
    """1.0 if any scored turn hits gold, else 0.0 (NaN with no scored turn)."""
    return float(any(hits)) if len(hits) else float("nan")


T2R_COUNTS: tuple[str, ...] = ("recommend", "system", "all")  # ScoreConfig.t2r_count values


def turns_to_first_hit(
    hits: Sequence[float], positions: Sequence[int] | None = None, n_counted: int | None = None
) -> float:
    """Position (1-based) of the first hitting turn; ``n_counted + 1`` when none hits.

    ``positions[i]`` is scored turn i's position in the counted sequence and ``n_counted``
    that sequence's length (defaults: the scored turns themselves, 1..len(hits))."""
    if not len(hits):
        return float("nan")
    pos = list(positions) if positions is not None else list(range(1, len(hits) + 1))
    n = n_counted if n_counted is not None else len(hits)
    idx = np.flatnonzero(np.asarray(hits, float) > 0)
    return float(pos[idx[0]]) if idx.size else float(n + 1)


def counted_positions(turns: Sequence[dict], count: str) -> tuple[list[int], int]:
    """``(positions, n)`` for :func:`turns_to_first_hit`: the 1-based position of every
    recommend/compare system turn among the turns ``count`` counts (:data:`T2R_COUNTS`), and
    how many turns it counts in the dialogue."""
    if count not in T2R_COUNTS:
        raise ValueError(f"t2r_count {count!r}: expected one of {', '.join(T2R_COUNTS)}")
    keep = {
        "recommend": lambda t: t["role"] == "system" and t["action"] in REC_ACTIONS,
        "system": lambda t: t["role"] == "system",
        "all": lambda t: True,
    }[count]
    counted = [t for t in turns if keep(t)]
    ids = {t["turn_id"]: i for i, t in enumerate(counted, 1)}
    return [ids[t["turn_id"]] for t in turns if t["role"] == "system" and t["action"] in REC_ACTIONS], len(counted)


def recovery_turns(turns: Sequence[dict]) -> list[int]:
    """``turn_id`` of the recovery turn of each rejection episode that has one."""
    out = []
    for i, turn in enumerate(turns):
        if turn["role"] == "user" and turn["action"] == REJECT_ACTION:
            nxt = next(
                (t["turn_id"] for t in turns[i + 1 :] if t["role"] == "system" and t["action"] in REC_ACTIONS), None
            )
            if nxt is not None:
                out.append(nxt)
    return out


def rejection_recovery(hit_by_turn: dict[int, float], recovery_turn_ids: Sequence[int]) -> float:
    """Fraction of episodes whose recovery turn hits; NaN with no episode."""
    if not recovery_turn_ids:
        return float("nan")
    return float(np.mean([hit_by_turn[t] for t in recovery_turn_ids]))
