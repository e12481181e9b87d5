import math

import pandas as pd
import pytest

from trace_crs.report import compare, paper


def test_every_key_round_trips_through_its_label():
    for key, (lab, _) in compare.BASELINES.items():
        assert compare.key_of(lab) == key
    assert compare.key_of("RAG-Cit.") == "rag_citation"
    assert compare.key_of("Claude Haiku 4.5") is None


@pytest.mark.parametrize("key,fam", [("tfidf", "non_llm"), ("mrs", "llm"), ("itinerary_llm", "llm")])
def test_family(key, fam):
    assert compare.family(key) == fam


def test_side_by_side_hand_computed():
    reported = pd.DataFrame({"Baseline": ["TF-IDF", "Dense", "Claude Haiku 4.5"],
                             "R@1": ["0.257", "", "0.485"]})
    ours = pd.DataFrame({"recall@1": [0.300, 0.250, 0.100], "run": ["c", "c", "c"]},
                        index=["tfidf", "dense", "popularity"])
    long = compare.side_by_side(reported, ours, {"R@1": "recall@1"})
    assert long["Baseline"].tolist() == ["TF-IDF", "Dense", "Claude Haiku 4.5", "Popularity"]
    assert long["paper"].iloc[0] == 0.257 and math.isnan(long["paper"].iloc[1])
    assert long["diff"].iloc[0] == pytest.approx(0.300 - 0.257)  # 0.043
    assert math.isnan(long["ours"].iloc[2])  # cross-family row not in our run
    assert long["run"].tolist()[:2] == ["c", "c"]


def test_wide_layout():
    long = pd.DataFrame({"Baseline": ["A", "A"], "baseline": ["a", "a"], "column": ["R@1", "CGS"],
                         "metric": ["r", "c"], "paper": [0.5, 0.7], "ours": [0.4, 0.7],
                         "diff": [-0.1, 0.0]})
    table = compare.wide(long)
    assert list(table.columns) == [("R@1", "paper"), ("R@1", "ours"), ("R@1", "diff"),
                                   ("CGS", "paper"), ("CGS", "ours"), ("CGS", "diff")]
    assert table.loc["A", ("R@1", "diff")] == -0.1


def test_paper_tables_ship_with_the_package():
    t5 = paper.table("table5_headline")
    assert t5.loc[t5["Baseline"] == "LLM Zero-Shot", "R@1"].iloc[0] == "0.533"
    assert paper.numeric(pd.Series(["0.140", ""])).tolist()[0] == 0.14
    assert "table27_multi_reference" in paper.available()
