"""Scores of live runs (TravelBench's multi-turn metrics, seed 003 §3): live TSR, T2R, turns to
success, rejection recovery,
abstention rate, and the replay metrics (:func:`trace_crs.metrics.score.score_predictions`) on
the live transcripts.

* ``tsr``, ``t2r`` and ``rejection_recovery`` come from the outcome rows
  (:func:`trace_crs.live.loop.outcome`, metrics.dialogue definitions over system turns, an
  abstention a turn without success); recovery is pooled over episodes as in replay
  (Σ recovered / Σ episodes).  Without abstentions they equal ``score_predictions``' values on
  the transcripts (a test checks it).
* ``turns_to_success``: mean number of system turns to the accepted recommendation, over the
  conversations that succeeded (T2R charges failures ``cap + 1``).
* ``questions_per_dialogue``: clarifying questions (``ask_preference`` turns,
  :mod:`trace_crs.live.ask`) per conversation; whether asking helped is the paired difference of
  a run with ``ask > 0`` and one without, on the same dialogues.
* ``abstention_rate``: abstaining system turns / system turns (every live request is solvable:
  the simulated user's profile is met by a candidate by construction).
* the turn and practical metrics of ``score_predictions`` on the transcripts, except BLEU-4 and
  ROUGE-L: a live turn has no reference text but its own, so they would be 1 by construction.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from trace_crs.atomic import write_text
from trace_crs.kb.store import KB
from trace_crs.metrics.score import ScoreConfig, score_predictions
from trace_crs.runner.records import write_table

SELF_REFERENTIAL: tuple[str, ...] = ("bleu4", "rouge_l")
GROUNDING: tuple[str, ...] = ("gs", "cd", "pc", "cgs")
LIVE_KEYS: tuple[str, ...] = (
    "tsr",
    "t2r",
    "turns_to_success",
    "rejection_recovery",
    "abstention_rate",
    "questions_per_dialogue",
)


def _clean(value: Any) -> Any:
    """NaN → None (valid JSON), numpy scalars → Python."""
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(float(value)) else float(value)
    return value


def write_frame(df: pd.DataFrame, path: Path) -> None:
    """A DataFrame as Parquet, atomically (the runner's writer)."""
    write_table(pa.Table.from_pandas(df, preserve_index=False), path)


def live_summary(
    kb: KB, transcripts: list[dict], preds: list[dict], outcomes: pd.DataFrame, cfg: ScoreConfig
) -> tuple[dict[str, Any], pd.DataFrame]:
    """One baseline's live aggregate and its per-dialogue frame (outcomes + mean grounding)."""
    scores = score_predictions(kb, transcripts, preds, cfg)
    episodes = int(outcomes["recovery_episodes"].sum())
    n_sys = int(outcomes["n_system_turns"].sum())
    live = {
        "tsr": outcomes["tsr"].mean(),
        "t2r": outcomes["t2r"].mean(),
        "turns_to_success": outcomes["turns_to_success"].mean(),
        "rejection_recovery": outcomes["recovery_hits"].sum() / episodes if episodes else float("nan"),
        "abstention_rate": outcomes["n_abstentions"].sum() / n_sys if n_sys else float("nan"),
        "questions_per_dialogue": outcomes["n_questions"].mean() if "n_questions" in outcomes else float("nan"),
    }
    replay = {k: v for k, v in scores.aggregate["metrics"].items() if k not in SELF_REFERENTIAL and k not in live}
    agg = {
        "n_dialogues": int(len(outcomes)),
        "n_system_turns": n_sys,
        "n_scored_turns": scores.aggregate["n_turns"],
        "n_fallbacks": int(outcomes["n_fallbacks"].sum()),
        "signature": scores.aggregate["signature"],
        "metrics": {k: _clean(v) for k, v in {**live, **replay}.items()},
    }
    grounding = (
        scores.per_turn.groupby("dialogue_id")[list(GROUNDING)].mean().reset_index()
        if len(scores.per_turn)
        else pd.DataFrame(columns=["dialogue_id", *GROUNDING])
    )
    per_dialogue = outcomes.merge(grounding, on="dialogue_id", how="left")
    return agg, per_dialogue


def write_scores(
    kb: KB, runs: dict[str, tuple[list[dict], list[dict], pd.DataFrame]], out: Path, resolved: dict[str, Any]
) -> dict[str, Any]:
    """``live_scores.json`` (config + per-baseline aggregates) and ``live_scores.parquet``
    (per-dialogue rows of every baseline), atomically; returns the JSON's content."""
    cfg = ScoreConfig(pool=resolved["pool"], seed=resolved["seed"])
    summary: dict[str, Any] = {
        "config": {
            k: resolved[k]
            for k in ("pool", "seed", "subset", "max_turns", "opening_prefs", "kb_sha256", "dialogues_sha256")
        }
        | {"ask": resolved.get("ask", 0)},
        "baselines": {},
    }
    frames = []
    for name, (transcripts, preds, outcomes) in runs.items():
        agg, per_dialogue = live_summary(kb, transcripts, preds, outcomes, cfg)
        summary["baselines"][name] = agg
        frames.append(per_dialogue)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    write_frame(table, out / "live_scores.parquet")
    write_text(out / "live_scores.json", json.dumps(summary, indent=2, sort_keys=True, allow_nan=False) + "\n")
    return summary
