"""Fabricated score files (ARCHITECTURE §5) for report tests."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest


def write_scores(results_dir: Path, run: str, baseline: str, metrics: dict,
                 per_turn: list[dict] | None = None, per_dialogue: list[dict] | None = None,
                 n_dialogues: int = 2, n_turns: int = 3, n_undefined: dict | None = None) -> None:
    """Write ``scores/<run>/<baseline>.json|.per_turn.parquet|.per_dialogue.parquet``."""
    out = results_dir / "scores" / run
    out.mkdir(parents=True, exist_ok=True)
    agg = {"n_dialogues": n_dialogues, "n_turns": n_turns, "n_missing": 0,
           "signature": f"trace|v:0.1.0|kb:abcd1234|pool:8|fuzzy:0.80|nli:none|seed:42|run:{run}",
           "config": {"pool": 8}, "metrics": metrics, "n_undefined": n_undefined or {}}
    (out / f"{baseline}.json").write_text(json.dumps(agg))
    turns = per_turn or [{"dialogue_id": "d1", "turn_id": 2, **{k: v for k, v in metrics.items()}}]
    pd.DataFrame(turns).to_parquet(out / f"{baseline}.per_turn.parquet")
    dialogues = per_dialogue or [{"dialogue_id": "d1", "tsr": 1.0}]
    pd.DataFrame(dialogues).to_parquet(out / f"{baseline}.per_dialogue.parquet")


@pytest.fixture
def scores():
    return write_scores
