"""Replayed vs live chapter: hand-made score files, Kendall's τ worked out by hand, and the
graceful message when the live run is missing."""
from __future__ import annotations

import json
import math

import pytest

from trace_crs.report import live_vs_replayed as lvr


def write(results_dir, replayed: dict, live: dict):
    for name, tsr in replayed.items():
        path = results_dir / "scores" / "closed" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"metrics": {"tsr": tsr, "t2r": 2.0 - tsr, "rejection_recovery": tsr}}))
    path = results_dir / "live" / "live" / "live_scores.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"config": {"max_turns": 4}, "baselines": {
        n: {"n_dialogues": 10, "metrics": {"tsr": v, "t2r": 5.0 - v, "rejection_recovery": None,
                                           "turns_to_success": 2.0, "abstention_rate": 0.0, "cgs": 0.5}}
        for n, v in live.items()}}))


def test_tau_on_hand_worked_rankings(tmp_path):
    # replayed 0.1 < 0.2 < 0.3; live orders popularity < tfidf, popularity < aspect, aspect < tfidf:
    # pairs (pop, tfidf) +, (pop, aspect) +, (tfidf, aspect) −  →  τ = (2 − 1) / 3
    write(tmp_path, {"popularity": 0.1, "tfidf": 0.2, "aspect": 0.3}, {"popularity": 0.1, "tfidf": 0.3, "aspect": 0.2})
    df = lvr.load(tmp_path, replay_runs=["closed"])
    assert list(df["baseline"]) == ["aspect", "popularity", "tfidf"]
    facts = lvr.facts(df)
    assert facts["tau_tsr"] == pytest.approx(1 / 3)
    assert facts["tau_t2r"] == pytest.approx(1 / 3)  # both T2Rs are decreasing in TSR: same pair signs
    assert math.isnan(facts["tau_rejection_recovery"])  # no live recovery: undefined
    assert (facts["n_baselines"], facts["n_live_dialogues"], facts["max_turns"]) == (3, 10, 4)
    assert not (tmp_path / "tables").exists()  # load only reads; the notebook writes the CSV
    assert "Not included" in facts["status"] and "live_llm" in facts["status"]  # the optional LLM run
    lvr.plot(df, tmp_path / "figures")


def test_reversed_ranking_is_tau_minus_one_and_a_missing_replay_is_nan(tmp_path):
    write(tmp_path, {"popularity": 0.1, "tfidf": 0.2, "aspect": 0.3},
          {"popularity": 0.3, "tfidf": 0.2, "aspect": 0.1, "knowledge": 0.9})
    df = lvr.load(tmp_path, replay_runs=["closed"])
    assert df.set_index("baseline").loc["knowledge", "replay_run"] == ""
    assert lvr.facts(df)["tau_tsr"] == pytest.approx(-1.0)


def test_missing_live_run_gives_an_empty_table_and_a_message(tmp_path):
    df = lvr.load(tmp_path)
    facts = lvr.facts(df)
    assert df.empty and "No live run" in facts["status"] and "live/live/live_scores.json" in facts["status"]
    assert "live/live_llm/live_scores.json" in facts["status"]
    assert math.isnan(facts["tau_tsr"]) and facts["n_baselines"] == 0
    lvr.plot(df, tmp_path / "figures")


def test_replayed_scores_are_taken_over_the_live_dialogues(tmp_path):
    import pandas as pd
    write(tmp_path, {"popularity": 0.9}, {"popularity": 0.5})
    pd.DataFrame({"dialogue_id": ["d1", "d2"], "baseline": "popularity"}).to_parquet(
        tmp_path / "live" / "live" / "live_scores.parquet")
    # d3 is not a live dialogue: left out.  TSR (1 + 0) / 2; T2R (1 + 3) / 2; recovery (1 + 0) / (1 + 2) pooled
    pd.DataFrame({"dialogue_id": ["d1", "d2", "d3"], "tsr": [1.0, 0.0, 1.0], "t2r": [1.0, 3.0, 1.0],
                  "recovery_hits": [1, 0, 5], "recovery_episodes": [1, 2, 5]}).to_parquet(
        tmp_path / "scores" / "closed" / "popularity.per_dialogue.parquet")
    row = lvr.load(tmp_path, replay_runs=["closed"]).iloc[0]
    assert row["replay_scope"] == "live dialogues"
    assert (row["replayed_tsr"], row["replayed_t2r"]) == (0.5, 2.0)
    assert row["replayed_rejection_recovery"] == pytest.approx(1 / 3)
