"""``score_predictions(kb, dialogues, predictions, cfg) -> Scores`` (ARCHITECTURE §5).

One row per reference system recommend/compare turn (``per_turn``), one per dialogue
(``per_dialogue``), and ``aggregate`` = {n_dialogues, n_turns, n_missing, signature, config,
metrics, n_undefined, entailment_backend}: turn metrics are means over turns, dialogue
metrics means over the dialogues where they are defined (``n_undefined`` counts the rest,
e.g. dialogues without a stated price for ``price_alignment``).  ``mr_recall@k_alt_only``
is multi-reference recall over turns that have acceptable alternatives (Appendix S).

A reference turn without a prediction scores 0 on every turn metric (an empty ranking and
no text would otherwise get a vacuous GS = PC = 1) and is counted in ``n_missing``;
``cfg.strict`` makes it an error (:class:`~trace_crs.errors.DataError`).  Citations that point
at reviews of POIs the turn does not present are dropped (their quotes count as ungrounded) and
counted in ``n_off_target_citations`` (:mod:`trace_crs.metrics.predictions`).  Definitions of
each metric are in its family module; citation labels resolve as in
:mod:`trace_crs.metrics.quotes`.  :class:`ScoreConfig` rejects out-of-range values
(:class:`~trace_crs.errors.UsageError`, naming the field).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

import numpy as np
import pandas as pd

from trace_crs.config import ScoreConfig, signature
from trace_crs.dialogues.personas import persona_dependent
from trace_crs.errors import DataError
from trace_crs.kb import KB
from trace_crs.metrics import recommendation as rec
from trace_crs.metrics.dialogue import REC_ACTIONS, counted_positions, recovery_turns
from trace_crs.metrics.entailment import Backend, entailment_scores
from trace_crs.metrics.predictions import Key, cited_texts, index_predictions, off_target, pool_of, scored_turns
from trace_crs.metrics.quotes import quote_counts
from trace_crs.metrics.registry import ALT_ONLY, DIALOGUE_METRICS, METRICS, POOLED_RATIOS, TURN_METRICS


class ScoreFile(TypedDict):
    """The aggregate JSON of ``trace-crs score`` (ARCHITECTURE §5; fixed keys, STYLE "``trace-crs
    score``"): counts, the provenance signature and resolved config, the metric means."""

    n_dialogues: int
    n_turns: int
    n_missing: int
    signature: str
    config: dict[str, Any]
    entailment_backend: str
    n_undefined: dict[str, int]
    metrics: dict[str, float | None]
    n_off_target_citations: NotRequired[int]
    n_ignored_predictions: NotRequired[int]
    quotes: NotRequired[dict[str, int]]  # what the quote parser read (metrics.quotes.quote_counts)
    judge_usage: NotRequired[dict[str, Any]]


@dataclass
class Scores:
    per_turn: pd.DataFrame
    per_dialogue: pd.DataFrame
    aggregate: ScoreFile


@dataclass
class TurnBatch:
    """Column inputs of the turn metrics."""

    gold: list[list[str]] = field(default_factory=list)
    alternatives: list[list[str]] = field(default_factory=list)
    ranked: list[list[str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    reference_text: list[str] = field(default_factory=list)
    cited: list[dict[str, str]] = field(default_factory=list)
    entailment: np.ndarray | None = None


@dataclass
class DialogueBatch:
    """Per-dialogue inputs of the dialogue metrics."""

    hits: list[list[float]] = field(default_factory=list)
    hit_by_turn: list[dict[int, float]] = field(default_factory=list)
    recovery: list[list[int]] = field(default_factory=list)
    coords: list[list[tuple[float, float]]] = field(default_factory=list)
    prices: list[list[int | None]] = field(default_factory=list)
    poi_types: list[list[str]] = field(default_factory=list)
    pool_types: list[list[str]] = field(default_factory=list)
    user_texts: list[list[str]] = field(default_factory=list)
    t2r_counted: list[tuple[list[int], int]] = field(default_factory=list)


def _mean(x: pd.Series) -> float | None:
    v = x.dropna()
    return float(v.mean()) if len(v) else None


def score_predictions(
    kb: KB,
    dialogues: Sequence[Mapping[str, Any]],
    predictions: Mapping[Key, dict] | Iterable[Mapping[str, Any]],
    cfg: ScoreConfig = ScoreConfig(),
    entailment: Backend | None = None,
) -> Scores:
    """Score one system's predictions on ``dialogues`` (see module docstring).

    ``predictions`` is either the mapping returned by :func:`~trace_crs.metrics.predictions.
    read_predictions` (already validated) or an iterable of prediction records (validated
    here, errors name ``predictions[i]``).
    """
    if not isinstance(predictions, Mapping):
        predictions = index_predictions(
            ((f"predictions[{i}]", p) for i, p in enumerate(predictions)), dialogues, kb, pool=cfg.pool
        )
    n_missing = len(scored_turns(dialogues)) - len(predictions)
    if cfg.strict and n_missing:
        absent = sorted(set(scored_turns(dialogues)) - set(predictions))[:5]
        raise DataError(f"{n_missing} reference turns have no prediction (strict), e.g. {absent}")
    n_off_target = 0
    tb, db, rows, missing = TurnBatch(), DialogueBatch(), [], []
    empty: dict[str, Any] = {"ranked_poi_ids": [], "text": "", "citations": []}
    for d in dialogues:
        sc = d["scenario"]
        recov = recovery_turns(d["turns"])
        hits: list[float] = []
        hit_by_turn: dict[int, float] = {}
        recommended: list[str] = []
        names = (
            {p: kb.pois[p].name for p in sorted(pool_of(d, cfg.pool)) if p in kb.pois}
            if cfg.ranked_list == "response"
            else {}
        )
        for turn in d["turns"]:
            if turn["role"] != "system" or turn["action"] not in REC_ACTIONS:
                continue
            pred = predictions.get((d["dialogue_id"], turn["turn_id"]))
            missing.append(pred is None)
            pred = pred or empty
            n_off_target += off_target(kb, pred)
            cited = cited_texts(kb, pred)  # what a turn presents for grounding is its ranking's top 3 either way
            if cfg.ranked_list == "response":  # App. J's "prediction list" read as the POIs the response names
                pred = {**pred, "ranked_poi_ids": rec.response_list(pred["text"], names)}
            gold = list(turn.get("gold_poi_ids") or [])
            tb.gold.append(gold)
            tb.alternatives.append(list(turn.get("acceptable_alternative_poi_ids") or []))
            tb.ranked.append(list(pred["ranked_poi_ids"]))
            tb.text.append(pred["text"])
            tb.reference_text.append(turn["text"])
            tb.cited.append(cited)
            hit = float(rec.turn_hits([gold], [pred["ranked_poi_ids"]])[0])
            hits.append(hit)
            hit_by_turn[turn["turn_id"]] = hit
            recommended += [p for p in rec.recommended(pred["ranked_poi_ids"], len(gold)) if p not in recommended]
            rows.append(
                {
                    "dialogue_id": d["dialogue_id"],
                    "turn_id": turn["turn_id"],
                    "action": turn["action"],
                    "difficulty": sc.get("difficulty"),
                    "city": sc.get("city"),
                    "poi_type": sc.get("poi_type"),
                    "has_alternative": bool(tb.alternatives[-1]),
                    "after_rejection": turn["turn_id"] in recov,
                    "persona_dependent": persona_dependent(sc),
                }
            )
        pois = [kb.pois[p] for p in recommended]
        db.hits.append(hits)
        db.hit_by_turn.append(hit_by_turn)
        db.recovery.append(recov)
        db.coords.append([(p.latitude, p.longitude) for p in pois])
        db.prices.append([p.price for p in pois])
        db.poi_types.append([p.poi_type for p in pois])
        db.pool_types.append([kb.pois[b].poi_type for b in d.get("candidate_poi_ids", []) if b in kb.pois])
        db.user_texts.append([t["text"] for t in d["turns"] if t["role"] == "user"])
        db.t2r_counted.append(counted_positions(d["turns"], cfg.t2r_count))
    if entailment is not None:
        tb.entailment = entailment_scores(
            tb.text, [list(c.values()) for c in tb.cited], entailment, cfg.entail_threshold
        )
    cols: dict[str, np.ndarray] = {}
    for name in TURN_METRICS:
        if METRICS[name].needs == "entailment" and entailment is None:
            continue
        cols[name] = METRICS[name].compute(tb, cols, cfg) if rows else np.zeros(0)
    for name in cols:  # a missing prediction earns nothing, not a vacuous 1
        cols[name] = np.where(np.array(missing, dtype=bool), 0.0, cols[name]) if rows else cols[name]
    per_turn = pd.concat(
        [
            pd.DataFrame(
                rows,
                columns=[
                    "dialogue_id",
                    "turn_id",
                    "action",
                    "difficulty",
                    "city",
                    "poi_type",
                    "has_alternative",
                    "after_rejection",
                    "persona_dependent",
                ],
            ),
            pd.DataFrame(cols),
        ],
        axis=1,
    )
    per_dialogue = pd.DataFrame(
        {
            "dialogue_id": [d["dialogue_id"] for d in dialogues],
            **{n: METRICS[n].compute(db, cfg) if dialogues else np.zeros(0) for n in DIALOGUE_METRICS},
            "recovery_hits": [sum(h[t] for t in r) for h, r in zip(db.hit_by_turn, db.recovery, strict=False)],
            "recovery_episodes": [len(r) for r in db.recovery],
        }
    )
    per_turn.insert(9, "missing", np.array(missing, dtype=bool))
    agg = aggregate(per_turn, per_dialogue, kb, cfg, n_missing, entailment)
    agg["n_off_target_citations"] = int(n_off_target)
    agg["n_ignored_predictions"] = int(getattr(predictions, "ignored", 0))
    agg["quotes"] = quote_counts([t for t, m in zip(tb.text, missing, strict=True) if not m])
    return Scores(per_turn, per_dialogue, agg)


def _variant_marks(cfg: ScoreConfig) -> dict[str, str]:
    """Signature parts of the scoring variants, only where they differ from the headline
    definitions (so headline signatures are unchanged)."""
    default = ScoreConfig()
    return {
        k: str(getattr(cfg, k))
        for k in ("ranked_list", "t2r_count", "text_reference")
        if getattr(cfg, k) != getattr(default, k)
    }


def aggregate(
    per_turn: pd.DataFrame,
    per_dialogue: pd.DataFrame,
    kb: KB,
    cfg: ScoreConfig,
    n_missing: int,
    entailment: Backend | None = None,
) -> ScoreFile:
    """The score-file dictionary (NaN → None so that it is valid JSON)."""
    metrics: dict[str, float | None] = {}
    for name in METRICS:
        if name in per_turn:
            metrics[name] = _mean(per_turn[name])
        elif name in per_dialogue:
            metrics[name] = _mean(per_dialogue[name])
    for name, (num, den) in POOLED_RATIOS.items():  # pooled over events, not averaged over dialogues
        if den in per_dialogue and per_dialogue[den].sum() > 0:
            metrics[name] = float(per_dialogue[num].sum() / per_dialogue[den].sum())
    alt = per_turn[per_turn["has_alternative"].astype(bool)] if len(per_turn) else per_turn
    for key, base in ALT_ONLY.items():
        metrics[key] = _mean(alt[base]) if len(alt) else None
    for col in [c for c in per_turn.columns if c.startswith("judge_")]:
        metrics[col] = _mean(per_turn[col])
    nli = entailment.name if entailment is not None else "none"
    return {
        "n_dialogues": int(len(per_dialogue)),
        "n_turns": int(len(per_turn)),
        "n_missing": int(n_missing),
        "signature": signature(
            kb.sha256,
            cfg.pool,
            cfg.fuzzy_threshold,
            nli,
            cfg.seed,
            cd=f"{cfg.cd_gate:.2f}",
            pc=cfg.pc_window,
            km=f"{cfg.spatial_km:g}",
            **_variant_marks(cfg),
        ),
        "config": dataclasses.asdict(cfg),
        "entailment_backend": nli,
        "n_undefined": {n: int(per_dialogue[n].isna().sum()) for n in DIALOGUE_METRICS if n in per_dialogue},
        "metrics": {k: (None if v is None or math.isnan(v) else v) for k, v in metrics.items()},
    }
