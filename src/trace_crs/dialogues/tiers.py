"""Difficulty tiers assigned at generation (paper §2.2 stage 5, Table 3, Appendix M).

Tier controls the number of stated constraints, the number of rejections and whether one
rejection is a *conflict* (the user tightens a constraint stated earlier).  The default mix
is the paper's 24.8 / 34.8 / 30.6 / 9.8 %; counts are allocated by largest remainder and
shuffled with the seed, so a corpus of n dialogues has the mix exactly up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trace_crs.dialogues.schema import TIERS

DEFAULT_MIX: dict[str, float] = {"easy": 0.248, "medium": 0.348, "hard": 0.306, "expert": 0.098}


@dataclass(frozen=True)
class TierSpec:
    """Structure of one tier's dialogues.

    ``constraints``: (min, max) number of stated constraints; ``rejections``: choices for
    the number of reject_and_refine turns; ``conflicts``: how many rejections tighten an
    earlier constraint (when the target allows); ``p_separate_compare``: probability that the
    compare turn answers its own user request instead of being the last recovery turn;
    ``p_extra_ask``: probability of a second ask_preference round.
    """

    constraints: tuple[int, int]
    rejections: tuple[int, ...]
    conflicts: int
    p_separate_compare: float
    p_extra_ask: float


TIER_SPECS: dict[str, TierSpec] = {
    "easy": TierSpec((2, 3), (1,), 0, 0.2, 0.0),
    "medium": TierSpec((3, 4), (1,), 0, 1.0, 0.35),
    "hard": TierSpec((4, 5), (2,), 1, 1.0, 0.5),
    "expert": TierSpec((5, 6), (2, 3), 1, 1.0, 0.0),
}


def allocate_tiers(n: int, rng: np.random.Generator, mix: dict[str, float] | None = None) -> list[str]:
    """A shuffled list of ``n`` tier labels with counts ``n × mix`` by largest remainder
    (ties broken in tier order)."""
    mix = mix or DEFAULT_MIX
    unknown = set(mix) - set(TIERS)
    if unknown or any(v < 0 for v in mix.values()) or sum(mix.values()) <= 0:
        raise ValueError(f"bad tier mix {mix}; expected non-negative shares of {TIERS}")
    total = sum(mix.values())
    exact = [n * mix.get(t, 0.0) / total for t in TIERS]
    counts = [int(np.floor(x)) for x in exact]
    order = sorted(range(len(TIERS)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    labels = [t for t, c in zip(TIERS, counts, strict=False) for _ in range(c)]
    return [labels[i] for i in rng.permutation(n)]
