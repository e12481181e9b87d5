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


def test_intervals_per_llm_cell(tmp_path, scores):
    # LLM Zero-Shot: 25 dialogues, R@1 1 on the first 10 -> 0.4 with an interval inside (0, 1) and n=25;
    # DST: 3 dialogues -> "insufficient n"; TF-IDF (non-LLM) is not shown
    zs = [{"dialogue_id": f"d{i:02d}", "turn_id": 2, "recall@1": float(i < 10)} for i in range(25)]
    scores(tmp_path, "closed_llm", "llm_zero_shot", {"recall@1": 0.4}, per_turn=zs)
    dst = [{"dialogue_id": f"d{i:02d}", "turn_id": 2, "recall@1": float(i == 0)} for i in range(3)]
    scores(tmp_path, "closed_llm", "dst", {"recall@1": 1 / 3}, per_turn=dst)
    scores(tmp_path, "closed", "tfidf", {"recall@1": 0.5})
    long = pd.DataFrame({"Baseline": ["LLM Zero-Shot", "DST", "TF-IDF"], "baseline": ["llm_zero_shot", "dst", "tfidf"],
                         "column": "R@1", "metric": "recall@1", "paper": 0.2, "ours": [0.4, 1 / 3, 0.5],
                         "diff": 0.0, "run": ["closed_llm", "closed_llm", "closed"]})
    out = compare.intervals(long, tmp_path, n_boot=400)
    assert list(out.index) == ["LLM Zero-Shot", "DST"]
    cell = out.loc["LLM Zero-Shot", "R@1"]
    low, high = (float(x) for x in cell.split("[")[1].split("]")[0].split(", "))
    assert cell.startswith("0.400 [") and out.loc["LLM Zero-Shot", "n"] == "25" and 0 < low < 0.4 < high < 1
    assert out.loc["DST", "R@1"] == "0.333 (insufficient n)" and out.loc["DST", "n"] == "3"
    # printed 0.2 lies outside LLM Zero-Shot's interval: marked for highlighting
    assert out.attrs["deviates"].loc["LLM Zero-Shot", "R@1"] == (not low <= 0.2 <= high)
