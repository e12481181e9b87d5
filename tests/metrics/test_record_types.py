"""The TypedDicts of the score boundary name exactly the keys the code writes (ARCHITECTURE §5):
``ScoreFile`` against a real aggregate, ``Prediction`` against the score format's fields.  (The
modules use postponed annotations, so ``NotRequired`` is read from the resolved hints.)"""
from typing import NotRequired, get_origin, get_type_hints

from trace_crs.metrics.predictions import PredictedCitation, Prediction
from trace_crs.metrics.score import ScoreConfig, ScoreFile, score_predictions

PREDS = [{"dialogue_id": "crs_yelp_00002", "turn_id": 2, "ranked_poi_ids": ["P3", "P4"], "text": "P3.", "citations": []}]


def optional(td) -> set[str]:
    hints = get_type_hints(td, include_extras=True)
    return {k for k, v in hints.items() if get_origin(v) is NotRequired}


def test_score_file_keys_are_the_aggregate_keys(kb, dialogues):
    agg = score_predictions(kb, dialogues, PREDS, ScoreConfig()).aggregate
    assert optional(ScoreFile) == {"n_off_target_citations", "n_ignored_predictions", "quotes", "judge_usage"}
    assert set(ScoreFile.__annotations__) - {"judge_usage"} == set(agg)  # the judge's usage only with --judge


def test_prediction_keys():
    assert set(Prediction.__annotations__) == {"dialogue_id", "turn_id", "ranked_poi_ids", "text", "citations"}
    assert set(PredictedCitation.__annotations__) == {"label", "review_id"}
