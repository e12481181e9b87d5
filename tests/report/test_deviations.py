"""Deviations page: verdicts against intervals, causes, and the written CSV."""
from __future__ import annotations

import pandas as pd

from trace_crs.report import deviations


def test_verdicts():
    assert deviations.verdict(0.5, 0.1, 0.3, True) == "deviates"
    assert deviations.verdict(0.2, 0.1, 0.3, True) == "within CI"
    assert deviations.verdict(0.5, 0.1, 0.3, False) == "insufficient n"
    assert deviations.verdict(0.5, float("nan"), float("nan"), False) == "no interval"


def test_cause_rules_first_match():
    diversity = deviations.cause_of("table9_practical", "ItineraryDiversity", "tfidf")
    assert "one POI type" in diversity
    assert deviations.cause_of("table5_headline", "R@1", "dst", llm="LLM text") == "LLM text"
    assert deviations.cause_of("table5_headline", "R@1", "tfidf", llm="LLM text") == "unexplained"
    tested = {("R@1", "tfidf"): "kb_missingness partly"}
    assert deviations.cause_of("table5_headline", "R@1", "tfidf", tested) == "kb_missingness partly"
    assert deviations.cause_of("table6_per_axis", "R@1", "tfidf", tested) == "unexplained"
    assert deviations.cause_of("table5_headline", "R@1", "not_a_baseline") == "unexplained"


def test_llm_cause_names_the_runs_model(tmp_path):
    run = tmp_path / "runs" / "closed_llm"
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("lm: {model: local, weights: qwen2.5-coder-0.5b-instruct-q4_k_m}\nsubset: 20\n")
    text = deviations.llm_cause(tmp_path, "closed_llm")
    assert "qwen2.5-coder-0.5b-instruct-q4_k_m" in text and "20 dialogues" in text and "1.5B" not in text


def test_load_flags_printed_value_outside_interval(tmp_path, scores):
    # 25 dialogues of TF-IDF with R@1 alternating 1/0 -> mean 0.52, interval well inside (0.2, 0.8);
    # the paper prints 0.257 for TF-IDF R@1 (Table 5): outside the interval only if it is.
    turns = [{"dialogue_id": f"d{i:02d}", "turn_id": 2, "recall@1": float(i % 2 == 0)} for i in range(25)]
    dialogues = [{"dialogue_id": f"d{i:02d}", "tsr": 1.0} for i in range(25)]
    scores(tmp_path, "closed", "tfidf", {"recall@1": 13 / 25}, per_turn=turns, per_dialogue=dialogues,
           n_dialogues=25, n_turns=25)
    df = deviations.load(tmp_path, tables=("t05_headline",), n_boot=200,
                         table_params={"t05_headline": {"runs": ["closed"]}})
    cell = df[(df["baseline"] == "tfidf") & (df["column"] == "R@1")].iloc[0]
    assert cell["n_clusters"] == 25
    expected = "within CI" if cell["ci_low"] <= cell["paper"] <= cell["ci_high"] else "deviates"
    assert cell["verdict"] == expected
    assert cell["ci_low"] > 0.2 and cell["paper"] < cell["ci_low"] and expected == "deviates"
    assert not (tmp_path / "tables").exists()  # the notebook writes deviations.csv
    assert deviations.summary(df).loc["table5_headline", "deviates"] >= 1
    assert pd.notna(deviations.deviating(df)["cause"]).all()
