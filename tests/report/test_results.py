import pytest

from trace_crs.report import results


def test_aggregates_concatenate_runs_with_baseline_column(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.25, "cgs": 0.8})
    scores(tmp_path, "closed", "dense", {"recall@1": 0.20, "cgs": 0.9})
    scores(tmp_path, "closed_llm", "llm_zero_shot", {"recall@1": 0.5, "cgs": 0.6})
    agg = results.load_aggregates(tmp_path, ["closed", "closed_llm"])
    assert list(agg["baseline"]) == ["dense", "tfidf", "llm_zero_shot"]
    assert list(agg["run"]) == ["closed", "closed", "closed_llm"]
    assert list(agg["recall@1"]) == [0.20, 0.25, 0.5]
    assert agg["n_turns"].tolist() == [3, 3, 3]


def test_per_turn_frames_carry_run_and_baseline(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5},
           per_turn=[{"dialogue_id": "d1", "turn_id": 2, "recall@1": 1.0},
                     {"dialogue_id": "d1", "turn_id": 4, "recall@1": 0.0}])
    scores(tmp_path, "closed", "dense", {"recall@1": 1.0},
           per_turn=[{"dialogue_id": "d1", "turn_id": 2, "recall@1": 1.0}])
    turns = results.load_per_turn(tmp_path, "closed")
    assert turns[["baseline", "turn_id"]].values.tolist() == [["dense", 2], ["tfidf", 2], ["tfidf", 4]]
    assert set(turns["run"]) == {"closed"}


def test_missing_run_names_the_path(tmp_path):
    with pytest.raises(results.ResultsMissing, match=str(tmp_path / "scores" / "open")):
        results.load_aggregates(tmp_path, "open")


def test_missing_baseline_names_the_run_directory(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5})
    with pytest.raises(results.ResultsMissing, match=r"\['dense'\].*scores/closed"):
        results.load_per_dialogue(tmp_path, "closed", baselines=["dense"])


def test_empty_score_directory_is_missing(tmp_path):
    (tmp_path / "scores" / "closed").mkdir(parents=True)
    with pytest.raises(results.ResultsMissing, match="no score files"):
        results.run_baselines(tmp_path, "closed")


def test_metric_table_rejects_baseline_in_two_runs(tmp_path, scores):
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5})
    scores(tmp_path, "open", "tfidf", {"recall@1": 0.1})
    with pytest.raises(ValueError, match="tfidf"):
        results.metric_table(results.load_aggregates(tmp_path, ["closed", "open"]))


def test_write_table_path(tmp_path):
    import pandas as pd
    path = results.write_table(pd.DataFrame({"a": [0.1234567]}), tmp_path, "t")
    assert path == tmp_path / "tables" / "t.csv"
    assert path.read_text() == "a\n0.123457\n"


def test_a_metric_no_dialogue_defines_is_undefined_not_missing(tmp_path, scores):
    """2 of 2 dialogues undefined -> the registry's reason; 1 of 2 -> a value, nothing marked; a baseline
    whose metric is absent from its file is not marked either (not computed)."""
    scores(tmp_path, "closed", "tfidf", {"itinerary_diversity": None, "price_alignment": 0.5},
           n_undefined={"itinerary_diversity": 2, "price_alignment": 1})
    scores(tmp_path, "closed", "dense", {"recall@1": 0.2})
    from trace_crs.report import compare, paper
    ours = results.metric_table(results.load_aggregates(tmp_path, "closed"))
    reason = results.metric_registry.undefined("itinerary_diversity")
    assert "two POI types" in reason
    assert ours.attrs[results.UNDEFINED] == {"itinerary_diversity": {"tfidf": reason}}
    long = compare.side_by_side(paper.table("table9_practical"), ours,
                                {"ItineraryDiversity": "itinerary_diversity", "PriceAlignment": "price_alignment"})
    cell = long.set_index(["baseline", "metric"])["undefined"]
    assert cell[("tfidf", "itinerary_diversity")] == reason
    assert cell[("dense", "itinerary_diversity")] == "" and cell[("tfidf", "price_alignment")] == ""
