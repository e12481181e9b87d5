"""A hand-built run (KB, dialogues, run config, predictions) for the re-scoring tests (stats.sensitivity, report).

KB (Tampa): P1 (27.95, -82.45); P2 0.009° north (≈1.0007 km); P4 0.018° north (≈2.0015 km);
P3 0.1° east (≈9.8 km from P1, ≈10 km from P4); P5..P8 far away.  Reviews: ra, rb of P1, rc of P2.
Dialogues: D1 user asks for somewhere *quiet* (a noise facet), recommend (gold P1), reject,
recommend (gold P2); D2 compare (gold P1, P2), no stated preference.
Predictions:
  tfidf      D1t2 [P1] quote "the pasta was fantastik" [R1]→ra (partial ratio 97.8: passes 0.7–0.9,
             fails exact); D1t4 [P2] "P2 is quiet" + quote "pricey sushi" [R1]→rc (ratio 42: fails);
             D2t2 [P3, P4], "P3 or P4." (no quote)
  popularity D1t2 [P5] "P5 is popular."; D1t4 missing; D2t2 [P1, P4] "P1 or P4."
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml

from trace_crs.kb import POI, Review
from trace_crs.kb.store import dump_jsonl, write_kb
from trace_crs.metrics.entailment import Backend

REVIEWS = {"ra": ("P1", "The pasta was fantastic and the patio is quiet at night. Service was slow."),
           "rb": ("P1", "Great cocktails and a cozy bar."), "rc": ("P2", "Cheap tacos, loud music.")}
POIS = [("P1", 27.95, -82.45), ("P2", 27.959, -82.45), ("P3", 27.95, -82.35), ("P4", 27.968, -82.45),
        ("P5", 28.50, -82.45), ("P6", 28.60, -82.45), ("P7", 28.70, -82.45), ("P8", 28.80, -82.45)]


def _turn(tid, role, action, text, gold=()):
    t = {"turn_id": tid, "role": role, "action": action, "text": text, "referenced_poi_ids": list(gold),
         "referenced_review_ids": [], "citations": []}
    if role == "system":
        t.update(gold_poi_ids=list(gold), acceptable_alternative_poi_ids=[])
    return t


def _dialogue(did, turns):
    return {"dialogue_id": did, "scenario": {
        "persona_type": "solo", "persona": "x", "context": "y", "city": "Tampa", "poi_type": "restaurant",
        "difficulty": "easy", "hidden_preferences": {"style": None, "price_max": None, "noise": None,
                                                     "ambience": [], "features": [], "anchor": None}},
        "candidate_poi_ids": [p for p, *_ in POIS], "expanded_pool_poi_ids": {"16": [], "32": []},
        "open_set_poi_ids": [], "turns": turns, "split": "test",
        "metadata": {"generator": "simulated", "model": None, "seed": 42, "kb_sha256": "", "retries": 0}}


DIALOGUES = [
    _dialogue("crs_yelp_00001", [_turn(1, "user", "greet_and_seek", "Somewhere quiet please."),
                                 _turn(2, "system", "recommend", "Try P1.", ["P1"]),
                                 _turn(3, "user", "reject_and_refine", "No, somewhere else."),
                                 _turn(4, "system", "recommend", "Then P2.", ["P2"])]),
    _dialogue("crs_yelp_00002", [_turn(1, "user", "greet_and_seek", "Dinner for two."),
                                 _turn(2, "system", "compare", "P1 or P2.", ["P1", "P2"])]),
]
R1 = lambda rid: [{"label": "R1", "review_id": rid}]  # noqa: E731
PREDICTIONS = {
    "tfidf": [("crs_yelp_00001", 2, ["P1"], 'Try P1: "the pasta was fantastik" [R1].', R1("ra")),
              ("crs_yelp_00001", 4, ["P2"], 'P2 is quiet: "pricey sushi" [R1].', R1("rc")),
              ("crs_yelp_00002", 2, ["P3", "P4"], "P3 or P4.", [])],
    "popularity": [("crs_yelp_00001", 2, ["P5"], "P5 is popular.", []),
                   ("crs_yelp_00002", 2, ["P1", "P4"], "P1 or P4.", [])],
}


def write_run(results_dir: Path, run: str = "closed") -> Path:
    """Write KB and dialogues under ``results_dir/../inputs`` and the run under ``results_dir/runs``."""
    inputs = Path(results_dir).parent / "inputs"
    write_kb([POI(business_id=b, name=b, address="1 Main St", city="Tampa", state="FL", latitude=la, longitude=lo,
                  poi_type="restaurant", categories=[], stars=4.0, review_count=1, price=2,
                  attributes={"style": None, "noise": None, "ambience": [], "features": []}) for b, la, lo in POIS],
             [Review(review_id=r, business_id=b, stars=4, text=t, date="2020-01-01") for r, (b, t) in REVIEWS.items()],
             inputs / "kb", {"profile": "test"})
    dump_jsonl(DIALOGUES, inputs / "dialogues.jsonl")
    out = Path(results_dir) / "runs" / run
    (out / "predictions").mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump({"kb": str(inputs / "kb"), "dialogues": str(inputs / "dialogues.jsonl"),
                                                     "subset": None, "seed": 42, "pool": "closed"}))
    for name, rows in PREDICTIONS.items():
        (out / "predictions" / f"{name}.jsonl").write_text("".join(
            json.dumps({"dialogue_id": d, "turn_id": t, "ranked_poi_ids": r, "text": x, "citations": c}) + "\n"
            for d, t, r, x, c in rows))
    return out


class FakeNLI(Backend):
    """p = 0.9 for claims about pasta, else 0.45 (a borderline claim)."""

    name = "fake"

    def _compute(self, pairs):
        return np.array([0.9 if "pasta" in h else 0.45 for _, h in pairs])
