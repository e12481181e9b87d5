"""Deviations page: the column "reproduced on the paper's corpus" (results/official beside the
profile's results), 'needs input' with how to run it when there is no official-corpus run."""
from __future__ import annotations

import pytest

from trace_crs.report import deviations
from trace_crs.stats.intervals import cell_intervals
from trace_crs.report import results


def _corpus(root, scores, baseline, hits):
    """Run `closed` of ``baseline``: one scored turn per dialogue, R@1 = hits[i]."""
    turns = [{"dialogue_id": f"d{i:02d}", "turn_id": 2, "recall@1": float(h)} for i, h in enumerate(hits)]
    dialogues = [{"dialogue_id": f"d{i:02d}", "tsr": 1.0} for i in range(len(hits))]
    scores(root, "closed", baseline, {"recall@1": sum(hits) / len(hits)}, per_turn=turns, per_dialogue=dialogues,
           n_dialogues=len(hits), n_turns=len(hits))


def _load(results_dir):
    return deviations.load(results_dir, tables=("t05_headline",), n_boot=200,
                           table_params={"t05_headline": {"runs": ["closed"]}})


def _cell(df, baseline, column="R@1"):
    return df[(df["baseline"] == baseline) & (df["column"] == column)].iloc[0][deviations.OFFICIAL_COLUMN]


def test_without_an_official_run_the_column_says_how_to_run_it(tmp_path, scores):
    _corpus(tmp_path / "smoke", scores, "tfidf", [1, 0] * 12 + [1])
    df = _load(tmp_path / "smoke")
    assert set(df[deviations.OFFICIAL_COLUMN]) == {deviations.OFFICIAL_HOW}
    assert "make paper DATASET=official" in deviations.OFFICIAL_HOW
    assert deviations.OFFICIAL_COLUMN in deviations.deviating(df).columns


def test_official_run_gives_value_interval_and_verdict(tmp_path, scores):
    ours, official = tmp_path / "smoke", tmp_path / "official"
    _corpus(ours, scores, "tfidf", [1, 0] * 12 + [1])
    _corpus(ours, scores, "popularity", [0, 1] * 12 + [0])
    # the paper's corpus: TF-IDF R@1 = 7/25 = 0.280 over 25 dialogues; the paper prints 0.257
    hits = [1, 0, 0, 0] * 6 + [1]
    _corpus(official, scores, "tfidf", hits)
    df = _load(ours)
    text = _cell(df, "tfidf")
    # independent check: the same interval computed directly on the official frames
    ci = cell_intervals(results.load_per_turn(official, ["closed"]), results.load_per_dialogue(official, ["closed"]),
                        ["recall@1"], n_boot=200, seed=42).iloc[0]
    paper = df[(df["baseline"] == "tfidf") & (df["column"] == "R@1")].iloc[0]["paper"]
    want = "within CI" if ci["ci_low"] <= paper <= ci["ci_high"] else "deviates"
    assert ci["mean"] == pytest.approx(7 / 25)
    assert text == f"0.280 [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}] {want}"
    assert _cell(df, "popularity") == deviations.OFFICIAL_NO_ROW  # not scored on the paper's corpus


def test_few_official_dialogues_are_insufficient_n(tmp_path, scores):
    _corpus(tmp_path / "default", scores, "tfidf", [1, 0] * 12 + [1])
    _corpus(tmp_path / "official", scores, "tfidf", [1, 0, 0])  # 3 dialogues, as the release fixtures
    text = _cell(_load(tmp_path / "default"), "tfidf")
    assert text.startswith("0.333") and text.endswith("insufficient n (n = 3)")


def test_on_the_official_profile_itself(tmp_path, scores):
    _corpus(tmp_path / "official", scores, "tfidf", [1, 0, 0])
    assert set(_load(tmp_path / "official")[deviations.OFFICIAL_COLUMN]) == {deviations.OFFICIAL_SELF}
