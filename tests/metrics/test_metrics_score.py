import json
import re
import math

import numpy as np
import pandas as pd
import pytest

from trace_crs.metrics.entailment import Backend
from trace_crs.metrics.predictions import PredictionError, read_predictions
from trace_crs.metrics.score import ScoreConfig, score_predictions

D1, D2 = "crs_yelp_00001", "crs_yelp_00002"
PREDS = [
    # D1 t2: gold P1, alt P2. R1 has no citations -> first review of top POI P2 = rc "Cheap tacos, loud music."
    {"dialogue_id": D1, "turn_id": 2, "ranked_poi_ids": ["P2", "P1", "P3"], "text": 'P2 is "cheap tacos, loud music" [R1] and cheap.'},
    # D1 t4 missing
    # D2 t2: compare, gold P1+P2, recommends P3+P4 (top-2), never hits
    {"dialogue_id": D2, "turn_id": 2, "ranked_poi_ids": ["P3", "P4", "P1"], "text": "P3 or P4.", "citations": []},
]


def test_end_to_end_hand_values(kb, dialogues):
    s = score_predictions(kb, dialogues, PREDS)
    pt = s.per_turn.set_index(["dialogue_id", "turn_id"])
    assert list(pt.index) == [(D1, 2), (D1, 4), (D2, 2)]
    np.testing.assert_allclose(pt["recall@3"], [1.0, 0.0, 0.5])
    np.testing.assert_allclose(pt["mrr"], [0.5, 0.0, 1 / 3])
    np.testing.assert_allclose(pt["mr_recall@1"], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(pt["cd"], [4 / 8, 0.0, 0.0])  # 4 quote tokens of P2 is cheap tacos loud music and cheap
    np.testing.assert_allclose(pt["cgs"], [1.0, 0.0, 0.0])
    assert list(pt["has_alternative"]) == [True, False, False]
    assert list(pt["after_rejection"]) == [False, True, False]
    assert list(pt["missing"]) == [False, True, False]
    assert pt.loc[(D1, 4), ["gs", "pc", "cd", "cgs", "recall@3"]].tolist() == [0.0] * 5
    assert list(pt["difficulty"]) == ["easy", "easy", "hard"]
    a = s.aggregate
    assert (a["n_dialogues"], a["n_turns"], a["n_missing"]) == (2, 3, 1)
    m = a["metrics"]
    expect = {"recall@1": 0.0, "recall@3": 0.5, "hit@1": 0.0, "hit@3": 2 / 3, "mrr": 5 / 18, "mr_recall@1": 1 / 3,
              "mr_recall@3": 2 / 3,  # D2's compare top-3 holds gold P1: an MR hit
              "mr_recall@1_alt_only": 1.0,
              # the missing D1 t4 scores 0 on every turn metric (it used to get a vacuous GS = PC = 1)
              "gs": 2 / 3, "cd": 1 / 6, "pc": 2 / 3, "cgs": 1 / 3,
              "tsr": 0.0, "t2r": 2.5, "rejection_recovery": 0.0, "spatial_coherence": 0.0, "price_alignment": 0.0,
              "itinerary_diversity": 0.5}
    for k, v in expect.items():
        assert m[k] == pytest.approx(v), k
    assert "entailment" not in m and a["entailment_backend"] == "none"
    assert a["n_undefined"]["price_alignment"] == 1 and a["n_undefined"]["rejection_recovery"] == 1
    assert a["signature"].startswith("trace|v:") and "|pool:closed|fuzzy:0.80|nli:none|seed:42" in a["signature"]
    json.dumps(a, allow_nan=False)  # valid JSON: NaN became null


def test_recovery_and_t2r_when_hit_after_rejection(kb, dialogues):
    preds = PREDS + [{"dialogue_id": D1, "turn_id": 4, "ranked_poi_ids": ["P2"], "text": ""}]
    pd_ = score_predictions(kb, dialogues, preds).per_dialogue.set_index("dialogue_id")
    assert pd_.loc[D1, "tsr"] == 1.0 and pd_.loc[D1, "t2r"] == 2.0 and pd_.loc[D1, "rejection_recovery"] == 1.0
    assert math.isnan(pd_.loc[D1, "spatial_coherence"])  # single recommended POI (P2)
    assert pd_.loc[D2, "t2r"] == 2.0 and pd_.loc[D2, "tsr"] == 0.0
    assert math.isnan(pd_.loc[D2, "rejection_recovery"]) and math.isnan(pd_.loc[D2, "price_alignment"])


def test_strict_and_empty(kb, dialogues):
    with pytest.raises(ValueError, match="1 reference turns have no prediction"):
        score_predictions(kb, dialogues, PREDS, ScoreConfig(strict=True))
    s = score_predictions(kb, [], [])
    assert s.aggregate["n_turns"] == 0 and s.aggregate["metrics"]["recall@1"] is None


class WordBackend(Backend):
    """Test backend: p = 1 if every word of the claim occurs in the premise, else 0."""

    name = "words"

    def _compute(self, pairs):
        words = lambda x: set(re.findall(r"\w+", x.lower()))  # noqa: E731
        return np.array([float(words(h) <= words(p)) for p, h in pairs])


def test_entailment_and_cgs_ent_wiring(kb, dialogues):
    preds = [{**PREDS[0], "text": '"Cheap tacos" [R1] here. Loud music there too [R1].'}]
    s = score_predictions(kb, dialogues, preds, entailment=WordBackend())
    row = s.per_turn.iloc[0]
    # claims: '"Cheap tacos"  here.' -> not all words in review; 'Loud music there too .' -> no. Both fail.
    assert row["entailment"] == 0.0 and row["cgs_ent"] == 0.0
    preds = [{**PREDS[0], "text": "cheap tacos loud music [R1]"}]
    row = score_predictions(kb, dialogues, preds, entailment=WordBackend()).per_turn.iloc[0]
    # one claim, all words in the review -> 1; no quotes -> CD 0 -> CGSent gated to 0
    assert row["entailment"] == 1.0 and row["cgs_ent"] == 0.0
    preds = [{**PREDS[0], "text": '"Cheap tacos, loud music" [R1] loud music.'}]
    s = score_predictions(kb, dialogues, preds, entailment=WordBackend())
    # claim {cheap, tacos, loud, music} in review -> 1; CD = 4/6; "cheap" is 25 chars from [R1] -> PC 1
    assert s.per_turn.iloc[0]["cgs_ent"] == 1.0 and s.per_turn.iloc[0]["cd"] == pytest.approx(4 / 6)
    assert s.aggregate["entailment_backend"] == "words" and "nli:words" in s.aggregate["signature"]


def write(tmp_path, lines):
    p = tmp_path / "p.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("line,msg", [
    ('{"dialogue_id": "crs_yelp_09999", "turn_id": 2, "ranked_poi_ids": [], "text": ""}', "p.jsonl:2: field 'dialogue_id'"),
    (f'{{"dialogue_id": "{D1}", "turn_id": 2, "ranked_poi_ids": ["NOPE"], "text": ""}}', "p.jsonl:2: field 'ranked_poi_ids'"),
    (f'{{"dialogue_id": "{D1}", "turn_id": 1, "ranked_poi_ids": [], "text": ""}}', "p.jsonl:2: field 'turn_id'"),
    (f'{{"dialogue_id": "{D1}", "turn_id": 2, "ranked_poi_ids": []}}', "p.jsonl:2: field 'text': missing"),
    (f'{{"dialogue_id": "{D1}", "turn_id": "2", "ranked_poi_ids": [], "text": ""}}', "p.jsonl:2: field 'turn_id'"),
    (f'{{"dialogue_id": "{D2}", "turn_id": 2, "ranked_poi_ids": [], "text": "", "citations": [{{"label": "R1", "review_id": "zz"}}]}}',
     "unknown review id"),
    (f'{{"dialogue_id": "{D1}", "turn_id": 2, "ranked_poi_ids": [], "text": ""}}', "duplicate"),
    ('{"dialogue_id": ', "p.jsonl:2"),
])
def test_bad_prediction_lines(kb, dialogues, tmp_path, line, msg):
    first = f'{{"dialogue_id": "{D1}", "turn_id": 2, "ranked_poi_ids": [], "text": ""}}'
    with pytest.raises(PredictionError, match=msg.replace("(", r"\(")):
        read_predictions(write(tmp_path, [first, line]), dialogues, kb)


def test_missing_file(kb, dialogues, tmp_path):
    with pytest.raises(FileNotFoundError):
        read_predictions(tmp_path / "none.jsonl", dialogues, kb)


def test_rejection_recovery_pools_episodes(kb):
    """Dialogue a: 1 episode, recovered; dialogue b: 2 episodes, none recovered.  Pooled over
    episodes 1/3 (the paper's definition), not the mean of per-dialogue rates (1 + 0) / 2."""
    from trace_crs.metrics.score import aggregate
    per_turn = pd.DataFrame({"has_alternative": pd.Series([], dtype=bool)})
    per_dialogue = pd.DataFrame({"dialogue_id": ["a", "b", "c"], "rejection_recovery": [1.0, 0.0, np.nan],
                                 "recovery_hits": [1.0, 0.0, 0.0], "recovery_episodes": [1, 2, 0]})
    assert aggregate(per_turn, per_dialogue, kb, ScoreConfig(), 0)["metrics"]["rejection_recovery"] == pytest.approx(1 / 3)
