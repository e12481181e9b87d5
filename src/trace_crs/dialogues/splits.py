"""Official splits (paper §2.1 Release, Appendix R): city × POI-type stratified 70 / 15 / 15
with seed 42.  Within each stratum (sorted by dialogue id) ids are permuted with
``default_rng([seed, k])`` (k = stratum rank) and the first ``round(0.70 n)`` go to train,
the next ``round(0.15 n)`` to val, the rest to test."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.schema import SPLITS

FRACTIONS: tuple[float, float, float] = (0.70, 0.15, 0.15)


def assign_splits(dialogues: list[dict[str, Any]], seed: int = DEFAULT_SEED) -> dict[str, list[str]]:
    """Write ``split`` into every dialogue (in place); return ``{split: sorted ids}``."""
    strata: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in dialogues:
        strata[(d["scenario"]["city"], d["scenario"]["poi_type"])].append(d)
    ids: dict[str, list[str]] = {s: [] for s in SPLITS}
    for k, key in enumerate(sorted(strata)):
        members = sorted(strata[key], key=lambda d: d["dialogue_id"])
        order = np.random.default_rng([seed, k]).permutation(len(members))
        n_train = int(round(FRACTIONS[0] * len(members)))
        n_val = int(round(FRACTIONS[1] * len(members)))
        for rank, i in enumerate(order):
            split = "train" if rank < n_train else "val" if rank < n_train + n_val else "test"
            members[i]["split"] = split
            ids[split].append(members[i]["dialogue_id"])
    return {s: sorted(v) for s, v in ids.items()}


def write_split_ids(ids: dict[str, list[str]], directory: str | Path) -> list[Path]:
    """``<directory>/<split>_dialogue_ids.json`` for each split (sorted JSON lists)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for split in SPLITS:
        path = directory / f"{split}_dialogue_ids.json"
        path.write_text(json.dumps(ids.get(split, []), indent=0) + "\n")
        paths.append(path)
    return paths


def read_split_ids(directory: str | Path) -> dict[str, str]:
    """``{dialogue_id: split}`` from the ``<split>_dialogue_ids.json`` files of
    :func:`write_split_ids` (Appendix R); a missing file is a :class:`FileNotFoundError` naming it."""
    directory = Path(directory)
    out: dict[str, str] = {}
    for split in SPLITS:
        path = directory / f"{split}_dialogue_ids.json"
        if not path.is_file():
            raise FileNotFoundError(f"split ids not found: {path} (written by `trace-crs dialogues` beside the corpus)")
        out.update({str(i): split for i in json.loads(path.read_text())})
    return out
