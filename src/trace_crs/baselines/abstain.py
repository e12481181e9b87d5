"""When a ranker should decline: its best candidate score (TravelBench-style abstention).

A ranker abstains on a turn when its best candidate's score is below a threshold τ
(:func:`trace_crs.metrics.abstention.tau_sweep` traces the trade-off).  Scores are the rankers'
own public scoring functions on the redacted :class:`~trace_crs.baselines.base.TurnContext`:
TF-IDF cosine (``tfidf``) and the TF-IDF/distance blend of Spatial (``spatial``).  Rankers whose
order is not a score of the request (Popularity) or whose scores mix several rankings (RRF)
have no meaningful confidence and are not listed: they never abstain.  Generative systems (the
LLM baselines) decline in words instead (:func:`decline_table`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from trace_crs.baselines.base import TurnContext, show_corpus_to
from trace_crs.baselines.popularity import fallback_output
from trace_crs.baselines.spatial import spatial_scores
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.dialogues.schema import ABSTAIN_ACTION, REC_ACTIONS, Dialogue
from trace_crs.dialogues.unsolvable import UNSOLVED_RE
from trace_crs.kb import KB

CONFIDENCE: dict[str, Callable[[TurnContext], np.ndarray]] = {"tfidf": tfidf_scores, "spatial": spatial_scores}


def best_score(name: str, ctx: TurnContext) -> float:
    """The ranker's score of its top candidate for this turn; ``-inf`` when the KB has no POI of
    the requested city and type (nothing to rank: every threshold abstains)."""
    if not ctx.kb.pois_in(ctx.city, ctx.poi_type):
        return float("-inf")
    scores = CONFIDENCE[name](ctx)
    return float(np.max(scores)) if len(scores) else float("-inf")


def first_request(dialogue: Dialogue, kb: KB) -> TurnContext:
    """The context of the dialogue's first system recommend/compare (or abstain) turn."""
    i = next(
        i
        for i, t in enumerate(dialogue["turns"])
        if t["role"] == "system" and t["action"] in (*REC_ACTIONS, ABSTAIN_ACTION)
    )
    return TurnContext.from_dialogue(dialogue, i, tuple(dialogue["candidate_poi_ids"]), kb, action="recommend")


def confidence_table(
    kb: KB, unsolvable: Sequence[Dialogue], solvable: Sequence[Dialogue], names: tuple[str, ...] = tuple(CONFIDENCE)
) -> pd.DataFrame:
    """``dialogue_id, baseline, unsolvable, best_score`` at the first request of every item."""
    rows = []
    for flag, group in ((True, unsolvable), (False, solvable)):
        for d in group:
            ctx = first_request(d, kb)
            rows += [
                {"dialogue_id": d["dialogue_id"], "baseline": n, "unsolvable": flag, "best_score": best_score(n, ctx)}
                for n in names
            ]
    return pd.DataFrame(rows)


def declined(out: Any) -> bool:
    """Whether a system answer declines: TravelBench's ``[Unsolved]`` marker, or no ranking."""
    return bool(UNSOLVED_RE.search(out.text or "")) or not out.ranked_poi_ids


def decline_table(
    kb: KB,
    unsolvable: Sequence[Dialogue],
    solvable: Sequence[Dialogue],
    systems: Mapping[str, Any],
    concurrency: int = 1,
) -> pd.DataFrame:
    """Generative systems (LLM baselines: the ``[Unsolved]`` rule is in their prompt,
    :mod:`trace_crs.baselines.unsolved_rule`) at the first request of every item:
    ``dialogue_id, baseline, unsolvable, reason, declined, fallback, text``.  A system whose call
    fails answers with the Popularity fallback (paper App. F), which never declines: counted in
    ``fallback``.  ``concurrency`` items are asked at once (the run's LLM thread pool: one per
    local server); the rows keep the item order, and each answer depends on its request alone: a
    system that learns from the corpus (``see_corpus``, Memory-Aug.) is handed every item's first
    request in item order before any is asked, as the runner does (``runner.execute.show_corpus``)."""
    items = [
        (name, flag, d) for name in systems for flag, group in ((True, unsolvable), (False, solvable)) for d in group
    ]
    # Memory-Aug.: its memory fixed in item order, whichever thread asks first
    show_corpus_to(systems.values(), lambda: [first_request(d, kb) for group in (unsolvable, solvable) for d in group])

    def ask(item: tuple[str, bool, Dialogue]) -> dict[str, Any]:
        name, flag, d = item
        ctx = first_request(d, kb)
        try:
            out = systems[name].predict(ctx)
        except Exception as exc:
            out = fallback_output(ctx, f"{type(exc).__name__}: {exc}")
        return {
            "dialogue_id": d["dialogue_id"],
            "baseline": name,
            "unsolvable": flag,
            "reason": d["unsolvable"]["reason"] if flag else "solvable",
            "declined": declined(out),
            "fallback": bool(out.usage.fallback),
            "text": out.text,
        }

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        rows = list(pool.map(ask, items))  # map keeps the order of ``items``
    return pd.DataFrame(
        rows, columns=["dialogue_id", "baseline", "unsolvable", "reason", "declined", "fallback", "text"]
    )
