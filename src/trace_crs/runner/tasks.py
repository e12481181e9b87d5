"""What gets evaluated: the dialogue subset, the candidate pool of each dialogue and the
system turns to predict (paper §4: every system recommend/compare turn of every reference
dialogue is replayed).

The pool is shuffled once per dialogue with a generator seeded by ``(seed, dialogue id)`` so
that candidate order carries no position signal and does not depend on which other
dialogues are in the run (subset, chunking or worker count never change it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from trace_crs.baselines.base import TurnContext
from trace_crs.config import POOLS
from trace_crs.dialogues.schema import REC_ACTIONS, check_dialogue, dialogue_lines
from trace_crs.dialogues.subset import select_subset
from trace_crs.errors import DataError
from trace_crs.kb import KB


def load_evaluated(path: str | Path, subset: int | None, seed: int) -> list[dict[str, Any]]:
    """The dialogues a run evaluates: :func:`select_subset` of the file's records, each
    validated against the dialogue schema.  Only the selected records are validated (schema
    validation costs ~3 ms a dialogue, so a 300-dialogue run no longer validates all 10,000)."""
    lines = list(dialogue_lines(path))
    if not lines:
        raise DataError("no dialogues (an empty corpus)", file=str(path), field="<file>")
    picked = select_subset(lines, subset, seed)
    for lineno, rec in picked:
        check_dialogue(rec, str(path), lineno)
    return [rec for _, rec in picked]


def pool_ids(dialogue: dict[str, Any], pool: str) -> list[str]:
    """The dialogue's candidate ids for ``pool`` (closed 8, expanded 16/32, open set)."""
    if pool == "closed":
        return list(dialogue["candidate_poi_ids"])
    if pool in ("16", "32"):
        return list(dialogue["expanded_pool_poi_ids"][pool])
    if pool == "open":
        return list(dialogue["open_set_poi_ids"])
    raise ValueError(f"unknown pool {pool!r}; expected one of {', '.join(POOLS)}")


def shuffled_pool(dialogue: dict[str, Any], pool: str, seed: int) -> tuple[str, ...]:
    """The pool permuted by ``default_rng([seed, first 8 bytes of sha256(dialogue_id)])``."""
    ids = pool_ids(dialogue, pool)
    salt = int.from_bytes(hashlib.sha256(dialogue["dialogue_id"].encode()).digest()[:8], "big")
    order = np.random.default_rng([seed, salt]).permutation(len(ids))
    return tuple(ids[i] for i in order)


def turn_contexts(dialogue: dict[str, Any], kb: KB, pool: str, seed: int) -> list[TurnContext]:
    """One :class:`TurnContext` per system recommend/compare turn, in turn order."""
    candidates = shuffled_pool(dialogue, pool, seed)
    unknown = [c for c in candidates if c not in kb.pois]
    if unknown:
        raise ValueError(f"dialogue {dialogue['dialogue_id']}: pool {pool} has POI id(s) not in the KB: {unknown[:3]}")
    return [
        TurnContext.from_dialogue(dialogue, i, candidates, kb, pool)
        for i, t in enumerate(dialogue["turns"])
        if t["role"] == "system" and t["action"] in REC_ACTIONS
    ]


def chunks(dialogues: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    """Consecutive chunks of ``size`` dialogues (the unit of atomic, resumable output)."""
    if size < 1:
        raise ValueError(f"chunk size must be ≥ 1, got {size}")
    return [dialogues[i : i + size] for i in range(0, len(dialogues), size)]
