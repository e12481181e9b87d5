"""Builders for the hand-worked dialogues of the metric-definition tests (pooled recovery,
multi-reference recall, price alignment, diversity), over the conftest KB (P1..P8, Tampa)."""
from __future__ import annotations

from typing import Any

HIDDEN = {"style": None, "price_max": None, "noise": None, "ambience": [], "features": [], "anchor": None}


def turn(tid: int, role: str, action: str, text: str = "", gold=None, alts=None) -> dict[str, Any]:
    t = {"turn_id": tid, "role": role, "action": action, "text": text, "referenced_poi_ids": list(gold or []),
         "referenced_review_ids": [], "citations": []}
    if role == "system" and action in ("recommend", "compare"):
        t["gold_poi_ids"] = list(gold or [])
        t["acceptable_alternative_poi_ids"] = list(alts or [])
    return t


def dialogue(did: str, turns: list[dict], pool=None, price_max=None) -> dict[str, Any]:
    return {"dialogue_id": did,
            "scenario": {"persona_type": "solo", "persona": "x", "context": "y", "city": "Tampa",
                         "poi_type": "restaurant", "difficulty": "easy",
                         "hidden_preferences": {**HIDDEN, "price_max": price_max}},
            "candidate_poi_ids": list(pool or [f"P{i}" for i in range(1, 9)]),
            "expanded_pool_poi_ids": {"16": [], "32": []}, "open_set_poi_ids": [],
            "turns": turns, "split": "test",
            "metadata": {"generator": "simulated", "model": None, "seed": 42, "kb_sha256": "", "retries": 0}}


def predictions(rows) -> list[dict[str, Any]]:
    """``[(dialogue_id, turn_id, ranked ids), ...]`` → prediction records without citations."""
    return [{"dialogue_id": d, "turn_id": t, "ranked_poi_ids": list(r), "text": "x", "citations": []} for d, t, r in rows]
