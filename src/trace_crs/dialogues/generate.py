"""Corpus generation (paper §2.2 stages 1–5): scenario cycle, tier allocation, one
generator per dialogue, splits, written as canonical JSON lines (same seed → same bytes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import commit_files
from trace_crs.dialogues.quotes import QuoteFinder
from trace_crs.dialogues.schema import SPLITS
from trace_crs.dialogues.simulator import simulate_dialogue
from trace_crs.dialogues.splits import assign_splits, write_split_ids
from trace_crs.dialogues.tiers import allocate_tiers
from trace_crs.kb.store import KB, dump_jsonl


def city_hotspots(cities: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Named neighbourhood centres per city (``kb.geo.city_table``) used as location anchors."""
    from trace_crs.kb.geo import city_table

    table = city_table()
    return {c: list(table.get(c, {}).get("hotspots", [])) for c in cities}


def generate_simulated(
    kb: KB, n: int, seed: int = DEFAULT_SEED, progress: bool = False, mix: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """``n`` simulated dialogues with tiers, splits and provenance."""
    if n < 1:
        raise ValueError(f"--n must be positive, got {n}")
    cities = kb.cities()
    tiers = allocate_tiers(n, np.random.default_rng([seed, 1]), mix)
    finder, hotspots = QuoteFinder(kb), city_hotspots(cities)
    dialogues = [
        simulate_dialogue(kb, finder, i, tiers[i], seed, cities, hotspots)
        for i in tqdm(range(n), desc="dialogues", disable=not progress, unit="dlg")
    ]
    assign_splits(dialogues, seed)
    return dialogues


def splits_dir(out: str | Path) -> Path:
    """Where the split id lists of corpus ``out`` go: ``<out stem>.splits/`` beside it."""
    out = Path(out)
    return out.with_name(out.stem + ".splits")


def write_corpus(
    dialogues: list[dict[str, Any]], out: str | Path, extra: Mapping[Path, Callable[[Path], Any]] | None = None
) -> Path:
    """Write the dialogues and ``<out stem>.splits/<split>_dialogue_ids.json`` beside them (a
    directory named after the corpus, so two corpora in one directory never share one), as one
    commit (:func:`trace_crs.atomic.commit_files`, the corpus last): a killed write never
    leaves a corpus beside split lists of another one.  ``extra``: more files of the same
    output (the LLM generator's failures and acceptance report), path -> writer, in the commit.  The split directory is replaced as a
    whole, so one holding anything else is refused first (:func:`check_splits_dir`)."""
    out = Path(out)
    check_splits_dir(splits_dir(out))
    ids = {split: sorted(d["dialogue_id"] for d in dialogues if d["split"] == split) for split in SPLITS}
    writers: dict[str | Path, Callable[[Path], Any]] = {splits_dir(out): lambda t: write_split_ids(ids, t)}
    for path, write in (extra or {}).items():
        writers[path] = write
    writers[out] = lambda t: dump_jsonl(dialogues, t)
    commit_files(writers, marker=out)
    return out


def check_splits_dir(directory: Path) -> None:
    """UsageError when ``directory`` (a corpus's split lists, replaced as a whole) exists and is
    not only split lists: a file there, or another file or directory in it, would be lost."""
    from trace_crs.atomic import clean_stale
    from trace_crs.errors import UsageError

    if not (directory.exists() or directory.is_symlink()):
        return
    if directory.is_symlink() or not directory.is_dir():
        raise UsageError(f"{directory} (the corpus's split lists) exists and is not a directory; move it away")
    for p in sorted(directory.iterdir()):
        clean_stale(p)  # a killed writer's leftovers of the split files are not foreign
    expected = {f"{split}_dialogue_ids.json" for split in SPLITS}
    foreign = sorted(p.name for p in directory.iterdir() if p.name not in expected)
    if foreign:
        raise UsageError(
            f"{directory} (the corpus's split lists, replaced as a whole) holds {len(foreign)} other "
            f"file(s), e.g. {', '.join(foreign[:3])}; move them away or choose another --out"
        )
