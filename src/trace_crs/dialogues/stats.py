"""Corpus statistics of the dialogue half of the paper's Table 3 (§2.1).

* turns per dialogue: mean and sample standard deviation (ddof = 1);
* POIs recommended per dialogue: distinct POIs referenced by recommend/compare turns;
* rejection rate: reject_and_refine turns / user turns, over the corpus;
* tier counts, persona archetypes used, candidates per dialogue;
* share of recommend/compare turns with ≥ 1 acceptable alternative (Appendix S).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from trace_crs.dialogues.schema import REC_ACTIONS, SPLITS, TIERS


def corpus_stats(dialogues: list[dict[str, Any]]) -> dict[str, Any]:
    """Table-3 statistics of a list of dialogues (NaN for empty input)."""
    n = len(dialogues)
    turns = np.array([len(d["turns"]) for d in dialogues], dtype=float)
    pois = np.array(
        [
            len({b for t in d["turns"] if t["action"] in REC_ACTIONS for b in t["referenced_poi_ids"]})
            for d in dialogues
        ],
        dtype=float,
    )
    user = sum(t["role"] == "user" for d in dialogues for t in d["turns"])
    rejections = sum(t["action"] == "reject_and_refine" for d in dialogues for t in d["turns"])
    rec = [t for d in dialogues for t in d["turns"] if t["action"] in REC_ACTIONS]
    tiers = Counter(d["scenario"]["difficulty"] for d in dialogues)
    splits = Counter(d["split"] for d in dialogues)
    nan = float("nan")
    return {
        "dialogues": n,
        "turns_mean": float(turns.mean()) if n else nan,
        "turns_sd": float(turns.std(ddof=1)) if n > 1 else nan,
        "pois_recommended_mean": float(pois.mean()) if n else nan,
        "rejection_rate": rejections / user if user else nan,
        "dialogues_with_rejection": sum(any(t["action"] == "reject_and_refine" for t in d["turns"]) for d in dialogues),
        "rec_turns": len(rec),
        "rec_turns_with_alternative": (sum(bool(t.get("acceptable_alternative_poi_ids")) for t in rec) / len(rec))
        if rec
        else nan,
        "tiers": {t: tiers.get(t, 0) for t in TIERS},
        "splits": {s: splits.get(s, 0) for s in SPLITS},
        "persona_archetypes": len({d["scenario"]["persona_type"] for d in dialogues}),
        "candidates_per_dialogue": float(np.mean([len(d["candidate_poi_ids"]) for d in dialogues])) if n else nan,
    }
