"""``METRICS``: the one registry of Trace metrics, keyed ``name@k`` (STYLE "Metrics").

Each entry is a :class:`Metric` with its level (``turn`` or ``dialogue``), the function that
computes a column from a batch, and what it needs (``entailment`` metrics run only with an
entailment backend).  Turn functions take ``(batch, cols, cfg)`` where ``cols`` holds the
columns computed so far (entries are evaluated in registry order, so CGS can reuse GS, CD
and PC); dialogue functions take ``(dialogue_batch, cfg)``.  The definitions live in the
family modules; this file only wires inputs to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from trace_crs.metrics import dialogue as dlg
from trace_crs.metrics import grounding as gr
from trace_crs.metrics import practical as pr
from trace_crs.metrics import recommendation as rec
from trace_crs.metrics import text as tx


@dataclass(frozen=True)
class Metric:
    """One registered metric: level, column function, optional requirement."""

    level: str
    fn: Callable[..., np.ndarray]
    needs: str | None = None


def _each(f: Callable[[Any, Any], float], field: str) -> Callable[..., np.ndarray]:
    """Apply a per-dialogue function to one field of every dialogue."""
    return lambda db, cfg: np.array([f(x, cfg) for x in getattr(db, field)], dtype=float)


METRICS: dict[str, Metric] = {
    "recall@1": Metric("turn", lambda b, c, cfg: rec.recall_at_k(b.gold, b.ranked, 1)),
    "recall@3": Metric("turn", lambda b, c, cfg: rec.recall_at_k(b.gold, b.ranked, 3)),
    "hit@1": Metric("turn", lambda b, c, cfg: rec.hit_at_k(b.gold, b.ranked, 1)),
    "hit@3": Metric("turn", lambda b, c, cfg: rec.hit_at_k(b.gold, b.ranked, 3)),
    "mrr": Metric("turn", lambda b, c, cfg: rec.reciprocal_rank(b.gold, b.ranked)),
    "mr_recall@1": Metric(
        "turn", lambda b, c, cfg: rec.multi_reference_recall_at_k(b.gold, b.alternatives, b.ranked, 1)
    ),
    "mr_recall@3": Metric(
        "turn", lambda b, c, cfg: rec.multi_reference_recall_at_k(b.gold, b.alternatives, b.ranked, 3)
    ),
    "bleu4": Metric(
        "turn",
        lambda b, c, cfg: tx.bleu4(
            tx.text_view(b.text, cfg.text_reference), tx.text_view(b.reference_text, cfg.text_reference)
        ),
    ),
    "rouge_l": Metric(
        "turn",
        lambda b, c, cfg: tx.rouge_l_f1(
            tx.text_view(b.text, cfg.text_reference), tx.text_view(b.reference_text, cfg.text_reference)
        ),
    ),
    "gs": Metric("turn", lambda b, c, cfg: gr.grounding_score(b.text, b.cited, cfg.fuzzy_threshold)),
    "cd": Metric("turn", lambda b, c, cfg: gr.citation_density(b.text, b.cited)),
    "pc": Metric("turn", lambda b, c, cfg: gr.provenance_coverage(b.text, cfg.pc_window)),
    "cgs": Metric("turn", lambda b, c, cfg: gr.composite(c["gs"], c["cd"], c["pc"], cfg.cd_gate, cfg.pc_floor)),
    "entailment": Metric("turn", lambda b, c, cfg: b.entailment, needs="entailment"),
    "cgs_ent": Metric(
        "turn",
        lambda b, c, cfg: gr.composite(c["entailment"], c["cd"], c["pc"], cfg.cd_gate, cfg.pc_floor),
        needs="entailment",
    ),
    "spatial_coherence": Metric("dialogue", _each(lambda d, cfg: pr.spatial_coherence(d, cfg.spatial_km), "coords")),
    "route_km": Metric("dialogue", _each(lambda d, cfg: pr.route_km(d), "coords")),
    "price_alignment": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [pr.price_alignment(p, pr.price_ceiling(u)) for p, u in zip(db.prices, db.user_texts, strict=False)],
            dtype=float,
        ),
    ),
    "itinerary_diversity": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [pr.itinerary_diversity(t, p) for t, p in zip(db.poi_types, db.pool_types, strict=False)], dtype=float
        ),
    ),
    "tsr": Metric("dialogue", _each(lambda d, cfg: dlg.task_success(d), "hits")),
    "t2r": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [dlg.turns_to_first_hit(h, *db.t2r_counted[i]) for i, h in enumerate(db.hits)], dtype=float
        ),
    ),
    "rejection_recovery": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [dlg.rejection_recovery(h, r) for h, r in zip(db.hit_by_turn, db.recovery, strict=False)], dtype=float
        ),
    ),
}

TURN_METRICS = tuple(k for k, m in METRICS.items() if m.level == "turn")
DIALOGUE_METRICS = tuple(k for k, m in METRICS.items() if m.level == "dialogue")
ALT_ONLY = {"mr_recall@1_alt_only": "mr_recall@1", "mr_recall@3_alt_only": "mr_recall@3"}
