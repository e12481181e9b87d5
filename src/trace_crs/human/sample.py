"""Blind annotation items from evaluation runs (seed 000 App. K.1: 30 dialogues × 3 baselines).

:func:`sample_items` draws ``n`` dialogues (``numpy.random.default_rng(seed).choice`` over the
sorted ids of dialogues every requested baseline answered) and, per dialogue, its first system
turn that all of them answered.  It returns three lists:

* Task 1 items, one per (dialogue, baseline) in a seeded shuffled order: ``item_id`` (``t1-NNN``,
  reveals nothing), ``dialogue_id``, ``system_label`` ("System A/B/C", a seeded permutation per
  dialogue, so a letter does not name a system across dialogues), ``context`` (the turns before
  the rated one: role and text only — no actions, hidden preferences or gold), ``response``,
  ``quotes`` (the ``"…" [Rn]`` spans, :func:`trace_crs.dialogues.schema.parse_quotes`) and
  ``reviews`` (the cited reviews: label, POI name, stars, text).
* Task 2 items for the first ``n_task2`` sampled dialogues (an error if more than ``n``): context, the user's current request
  and the candidates (name, stars, categories, price, reviews) — never a system's answer.
* The key (kept away from annotators): ``item_id, dialogue_id, turn_id, baseline,
  system_label`` and the item's automated ``gs, cgs, cd`` when score frames are given.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.schema import Dialogue, parse_quotes
from trace_crs.errors import UsageError
from trace_crs.kb.store import KB

KEY_METRICS = ("gs", "cgs", "cd")
N_TASK2 = 20  # Task 2 dialogues by default (App. K.3: 20 of the 30)


def _context(dialogue: Dialogue, turn_id: int) -> list[dict[str, str]]:
    return [{"role": t["role"], "text": t["text"]} for t in dialogue["turns"] if t["turn_id"] < turn_id]


def _reviews(kb: KB, citations: str | None) -> list[dict[str, Any]]:
    out = []
    for c in json.loads(citations or "[]"):
        review = kb.reviews.get(c.get("review_id", ""))
        if review is None:
            continue  # a citation of an unknown review: the response's quote is then unsupported
        poi = kb.pois[review.business_id]
        out.append(
            {
                "label": c.get("label"),
                "review_id": review.review_id,
                "poi_name": poi.name,
                "stars": review.stars,
                "text": review.text,
            }
        )
    return out


def _candidate(kb: KB, poi_id: str) -> dict[str, Any]:
    poi = kb.pois[poi_id]
    return {
        "poi_id": poi_id,
        "name": poi.name,
        "stars": poi.stars,
        "categories": poi.categories,
        "price": "$" * poi.price if poi.price else None,
        "reviews": [{"review_id": r.review_id, "stars": r.stars, "text": r.text} for r in kb.reviews_of(poi_id)],
    }


def _first_common_turns(records: pd.DataFrame, baselines: Sequence[str]) -> dict[str, int]:
    sub = records[records["baseline"].isin(baselines)]
    counts = sub.groupby(["dialogue_id", "turn_id"])["baseline"].nunique()
    full = counts[counts == len(baselines)].reset_index()
    return full.groupby("dialogue_id")["turn_id"].min().to_dict()


def task2_count(n: int, n_task2: int | None) -> int:
    """The number of Task 2 dialogues (None: :data:`N_TASK2`, or ``n`` when smaller); a
    UsageError naming the flag unless ``1 <= n`` and ``0 <= n_task2 <= n`` (Task 2 dialogues
    are the first ``n_task2`` of the sample, App. K.3: 20 of the 30)."""
    n_task2 = min(N_TASK2, n) if n_task2 is None else n_task2
    if n < 1:
        raise UsageError(f"--n {n}: at least one dialogue")
    if not 0 <= n_task2 <= n:
        raise UsageError(f"--n-task2 {n_task2}: between 0 and --n ({n}); Task 2 dialogues are a subset of the sample")
    return n_task2


def sample_items(
    records: pd.DataFrame,
    dialogues: Mapping[str, Dialogue],
    kb: KB,
    baselines: Sequence[str],
    n: int,
    seed: int = DEFAULT_SEED,
    n_task2: int | None = None,
    scores: pd.DataFrame | None = None,
) -> tuple[list[dict], list[dict], list[dict]]:
    """``(task1_items, task2_items, key)`` (see the module docstring); ``n_task2`` None:
    :data:`N_TASK2` or ``n`` when smaller."""
    n_task2 = task2_count(n, n_task2)
    if len(baselines) > len(string.ascii_uppercase) or len(set(baselines)) != len(baselines):
        raise UsageError(f"--baselines: distinct names, at most 26 (got {list(baselines)})")
    missing = sorted(set(baselines) - set(records["baseline"]))
    if missing:
        raise UsageError(f"--baselines {missing} not in the run(s) (have {sorted(set(records['baseline']))})")
    turns = {d: t for d, t in _first_common_turns(records, baselines).items() if d in dialogues}
    if len(turns) < n:
        raise UsageError(f"--n {n}: only {len(turns)} dialogues were answered by every baseline at one turn")
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(sorted(turns), size=n, replace=False).tolist())
    by_key = records.set_index(["dialogue_id", "turn_id", "baseline"])
    metric = scores.set_index(["baseline", "dialogue_id", "turn_id"]) if scores is not None else None
    if metric is not None and metric.index.duplicated().any():
        raise UsageError("--scores: a (baseline, dialogue, turn) is scored twice; give each baseline's scores once")
    pending = []
    for did in chosen:
        letters = rng.permutation(len(baselines))
        for base, letter in zip(baselines, letters, strict=True):
            row = by_key.loc[(did, turns[did], base)]
            item = {
                "task": "t1",
                "dialogue_id": did,
                "system_label": f"System {string.ascii_uppercase[letter]}",
                "context": _context(dialogues[did], turns[did]),
                "response": row["text"],
                "quotes": [q.text for q in parse_quotes(row["text"])],
                "reviews": _reviews(kb, row["citations"]),
            }
            key = {
                "dialogue_id": did,
                "turn_id": int(turns[did]),
                "baseline": base,
                "system_label": item["system_label"],
            }
            for m in KEY_METRICS:
                value = np.nan
                if metric is not None and m in metric and (base, did, turns[did]) in metric.index:
                    value = float(metric.loc[(base, did, turns[did]), m])
                key[m] = None if not np.isfinite(value) else value
            pending.append((item, key))
    items, key_rows = [], []
    for k, i in enumerate(rng.permutation(len(pending))):
        item, key = pending[i]
        items.append({"item_id": f"t1-{k:03d}", **item})
        key_rows.append({"item_id": f"t1-{k:03d}", **key})
    task2 = []
    for k, did in enumerate(chosen[:n_task2]):
        context = _context(dialogues[did], turns[did])
        request = next((t["text"] for t in reversed(context) if t["role"] == "user"), "")
        task2.append(
            {
                "item_id": f"t2-{k:03d}",
                "task": "t2",
                "dialogue_id": did,
                "context": context,
                "request": request,
                "candidates": [_candidate(kb, p) for p in dialogues[did]["candidate_poi_ids"]],
            }
        )
    return items, task2, key_rows
