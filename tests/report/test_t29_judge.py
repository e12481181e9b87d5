"""Table 29 on hand-made score files: every baseline, judged turns, cluster intervals, judge cost."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trace_crs.report import t29

LOCAL = "openai/smollm2-135m-instruct-q4_1-sha256-b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def _write(res: Path, run: str, base: str, overall: list[float] | None, usage: dict | None = None) -> None:
    """Score files of one baseline: one judged turn per dialogue with ``judge_overall`` = the given
    value (all five scales equal to it) and one unjudged turn; no judge columns when ``overall`` is None."""
    out = res / "scores" / run
    out.mkdir(parents=True, exist_ok=True)
    values = overall or [0.0, 0.0]
    turns = pd.DataFrame({"dialogue_id": [f"d{i:02d}" for i in range(len(values)) for _ in (0, 1)],
                          "turn_id": [t for _ in values for t in (2, 4)], "recall@1": 0.5})
    metrics = {"recall@1": 0.5}
    if overall is not None:
        judged = [v for v in overall for v in (v, np.nan)]
        for col in t29.COLUMNS.values():
            turns[col] = judged
            metrics[col] = float(np.mean(overall))
    agg = {"n_dialogues": len(values), "n_turns": len(turns), "n_missing": 0, "signature": f"sig|run:{run}",
           "config": {}, "metrics": metrics} | ({"judge_usage": usage} if usage else {})
    (out / f"{base}.json").write_text(json.dumps(agg))
    turns.to_parquet(out / f"{base}.per_turn.parquet")
    pd.DataFrame({"dialogue_id": ["d00"], "tsr": [1.0]}).to_parquet(out / f"{base}.per_dialogue.parquet")


def _records(res: Path, run: str, base: str, model: str | None, tokens: int, seconds: float) -> None:
    d = res / "runs" / run
    d.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"dialogue_id": ["d00", "d01"], "baseline": base, "model": model, "prompt_tokens": tokens,
                  "completion_tokens": 0, "latency_s": seconds}).to_parquet(d / "records.parquet")


@pytest.fixture
def res(tmp_path):
    usage = {"model": LOCAL, "n": 20, "n_turns": 20, "n_failed": 0, "calls": 21, "prompt_tokens": 900,
             "completion_tokens": 90, "cost_usd": 0.0, "seconds": 30.0}
    # dense: 20 dialogues, 10 rated 2 and 10 rated 4 -> mean 3, enough clusters for an interval
    _write(tmp_path, "closed", "dense", [2.0, 4.0] * 10, usage)
    # tfidf: 3 dialogues rated 2, 3, 4 -> mean 3, below the 20-cluster minimum
    _write(tmp_path, "closed", "tfidf", [2.0, 3.0, 4.0], {**usage, "n_turns": 3, "calls": 3, "seconds": 4.5})
    _write(tmp_path, "closed_llm", "dst", None)                            # judge off for this run
    # mrs: judged, but its one turn's rating could not be parsed
    _write(tmp_path, "closed_llm", "mrs", [float("nan")], {**usage, "n_turns": 1, "n_failed": 1, "calls": 2,
                                                               "seconds": 2.0, "prompt_tokens": 50, "completion_tokens": 10})
    _records(tmp_path, "closed", "dense", None, 0, 0.25)
    _records(tmp_path, "closed_llm", "dst", LOCAL, 1000, 5.0)
    return tmp_path


def test_every_baseline_with_turns_and_cluster_intervals(res):
    ci = t29.intervals(res, n_boot=200).set_index(["baseline", "column"])
    dense, tfidf, dst = ci.loc[("dense", "Overall")], ci.loc[("tfidf", "Grounding")], ci.loc[("dst", "Relevance")]
    assert (dense["mean"], dense["n_turns"], dense["n_clusters"], dense["sufficient"]) == (3.0, 20, 20, True)
    assert 2.0 <= dense["ci_low"] < 3.0 < dense["ci_high"] <= 4.0
    assert (tfidf["mean"], tfidf["n_turns"], tfidf["sufficient"]) == (3.0, 3, False)
    assert dst["n_turns"] == 0 and not dst["sufficient"]
    shown = t29.display(ci.reset_index()).set_index("Baseline")
    assert shown.loc["TF-IDF", "Overall"] == "3.00 (insufficient n)" and shown.loc["TF-IDF", "turns"] == 3
    assert shown.loc["DST", "Relevance"] == "not judged"
    assert shown.loc["Multi-Rev. Synth.", "Overall"] == "no parseable rating" and shown.loc["Multi-Rev. Synth.", "failed"] == 1
    assert shown.loc["Dense", "Flow"].startswith("3.00 [") and shown.loc["Dense", "dialogues"] == 20
    assert not (res / "tables").exists()  # intervals only reads; the notebook writes the CSV
    # fewer clusters than asked for: the 20-dialogue row becomes insufficient too
    assert not t29.intervals(res, n_boot=50, min_clusters=21).set_index(["baseline", "column"]).loc[
        ("dense", "Overall"), "sufficient"]


def test_judge_cost_beside_own_cost_and_facts(res):
    cost = t29.costs(res).set_index("baseline")
    assert cost.loc["dense", "judge_calls"] == 21 and cost.loc["dense", "judge_s"] == 30.0
    assert cost.loc["dense", "total_s"] == pytest.approx(0.5 + 30.0)      # own 2 x 0.25 s + judge
    assert cost.loc["tfidf", "judge_prompt_tokens"] == 900 and cost.loc["tfidf", "judge_usd"] == 0.0
    assert pd.isna(cost.loc["dst", "judge_calls"]) and cost.loc["dst", "prompt_tokens"] == 2000
    df = t29.load(res)
    facts = t29.facts(df, t29.intervals(res, n_boot=50), t29.costs(res))
    assert facts["n_judged"] == 2 and facts["n_baselines"] == 4 and facts["n_sufficient"] == 1
    assert facts["n_turns_max"] == 20 and facts["judge_s"] == pytest.approx(30 + 4.5 + 2)
    assert facts["judge_tokens"] == pytest.approx(2 * 990 + 60)
