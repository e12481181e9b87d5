"""The Human evaluation page's module: paper-only without labels, twins from `human agree` output,
and fixture labels always called fixture labels."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.report import human_eval

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    res = tmp_path_factory.mktemp("res")
    assert main(["human", "agree", "--labels", str(FIX / "labels.jsonl"), "--key", str(FIX / "key.jsonl"),
                 "--source", "simulated", "--n-boot", "50", "--quiet", "--out", str(res / "human")]) == 0
    return res


def test_without_labels_only_the_paper(tmp_path):
    frames = human_eval.load(tmp_path)
    assert frames == {} and human_eval.summary(tmp_path) is None
    long = human_eval.table10(frames)
    assert long["ours"].isna().all() and long["paper"].notna().all()
    assert set(long["column"]) == set(human_eval.TABLE10_HEADERS.values())
    assert human_eval.frame(frames, "annotators").to_dict("records") == [{"ours": "not run"}]
    assert "No human labels" in human_eval.status(None)
    facts = human_eval.facts(frames)
    assert np.isnan(facts["mean_alpha"]) and facts["n_annotators"] == 0
    assert facts["paper_mean_alpha"] == "0.408" and facts["paper_jaccard"] == "0.437"   # printed claims


def test_twins_from_the_analysis(analysed):
    frames = human_eval.load(analysed)
    long = human_eval.table10(frames).set_index(["baseline", "column"])
    ours = frames["table10"].set_index("baseline")
    assert long.loc[("tfidf", "Cite. Prec."), "ours"] == pytest.approx(ours.loc["tfidf", "cite_prec"])
    assert long.loc[("llm_zero_shot", "Info."), "ours"] == pytest.approx(ours.loc["llm_zero_shot", "info_mean"])
    facts = human_eval.facts(frames)
    assert facts["n_annotators"] == 5 and facts["mean_alpha"] == pytest.approx(frames["alphas"]["mean_alpha"][0])
    assert "fixture labels" in human_eval.status(human_eval.summary(analysed))
    assert "not a human study" in human_eval.status(human_eval.summary(analysed))
    assert "Too vague" in set(human_eval.errors(frames)["category"])
    pairs = human_eval.paired(frames)
    assert "LLM Zero-Shot vs. TF-IDF" in set(pairs["pair"]) and isinstance(pairs, pd.DataFrame)


def test_a_study_is_not_called_a_fixture():
    text = human_eval.status({"source": "study", "n_annotators": 5, "n_items": 90, "labels": "l.jsonl"})
    assert "human study" in text and "fixture" not in text
