"""The one seeded subset of a corpus (paper §5: LLM rows, the judge and the sweeps use seeded
subsets): ``n`` indices drawn without replacement by a ``numpy`` generator, kept in corpus order.

``trace-crs evaluate --subset``, the judge's turns (:func:`trace_crs.metrics.judge.judged_turns`)
and ``trace-crs judge --n`` all draw through here, so ``--subset n --seed s`` and ``judge_n = n``
pick the same dialogues.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def seeded_indices(size: int, n: int | None, rng: np.random.Generator) -> list[int]:
    """``n`` of ``range(size)`` drawn by ``rng``, sorted (all of them when ``n`` is None or ≥ size;
    ``rng`` is then left untouched)."""
    if n is None or n >= size:
        return list(range(size))
    if n < 1:
        raise ValueError(f"--subset must be ≥ 1, got {n}")
    return [int(i) for i in np.sort(rng.choice(size, size=n, replace=False))]


def select_subset(items: Sequence[Any], n: int | None, seed: int) -> list[Any]:
    """``n`` items drawn without replacement with ``default_rng(seed)``, in their original order."""
    return [items[i] for i in seeded_indices(len(items), n, np.random.default_rng(seed))]
