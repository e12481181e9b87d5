"""CoRE on live conversations (trace_crs.report.core_live) on hand-built judged records: ranking,
n, failures, the dialogue-bootstrap interval and Kendall τ against replayed and live metrics."""
import json
import math

import pytest

from trace_crs.judge.core import FactorResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record
from trace_crs.report import core_live

# system -> the uniform rating of each of its four conversations (None: a failed factor)
RATINGS = {"tfidf": [4, 4, 3, 3], "popularity": [1, 1, 1, None], "dense": [3, 3, 3, 3]}
REPLAYED = {"tfidf": 0.3, "popularity": 0.1, "dense": 0.5}      # recall@1
LIVE_TSR = {"tfidf": 0.5, "popularity": 0.9, "dense": 0.2}


def write(results_dir):
    path = core_live.judged_path(results_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for system, ratings in RATINGS.items():
        for k, r in enumerate(ratings):
            results = {n: FactorResult(factor=n, rating=r if n != "novelty" or r is not None else None,
                                       rationale="why", attempts=1) for n in FACTORS}
            lines.append(judged_record(f"{system}/d{k}", system, results, None, {"mode": "per-factor"}, {}))
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    for system, v in REPLAYED.items():
        p = results_dir / "scores" / "closed" / f"{system}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"metrics": {"recall@1": v, "mrr": v, "cgs": v}}))
    live = results_dir / "live" / "live" / "live_scores.json"
    live.parent.mkdir(parents=True)
    live.write_text(json.dumps({"baselines": {s: {"metrics": {"tsr": t, "questions_per_dialogue": 0.0}}
                                              for s, t in LIVE_TSR.items()}}))


def test_not_run_is_empty(tmp_path):
    df = core_live.load(tmp_path)
    assert df.empty and core_live.plot(df) is None
    f = core_live.facts(df, core_live.tau(df))
    assert f["live_n_baselines"] == 0 and f["live_best"] == "n/a" and math.isnan(f["live_tau_cgs"])


def test_ranking_intervals_and_tau(tmp_path):
    write(tmp_path)
    df = core_live.load(tmp_path, n_boot=200)
    assert list(df["baseline"]) == ["tfidf", "dense", "popularity"]
    row = df.set_index("baseline")
    assert row.loc["tfidf", "core_avg"] == 3.5 and row.loc["tfidf", "n"] == 4
    assert 3.0 <= row.loc["tfidf", "ci_low"] < 3.5 < row.loc["tfidf", "ci_high"] <= 4.0
    assert row.loc["dense", "ci_low"] == row.loc["dense", "ci_high"] == 3.0 and not row.loc["dense", "sufficient"]
    assert (row.loc["popularity", "core_avg"], row.loc["popularity", "n"], row.loc["popularity", "n_failed"]) == (1.0, 3, 1)
    taus = core_live.tau(df).set_index("against")
    # CoRE order tfidf > dense > popularity; recall@1 dense > tfidf > popularity: 2 of 3 pairs agree
    assert taus.loc["replayed_recall@1", "kendall_tau"] == pytest.approx(1 / 3)
    # live TSR popularity > tfidf > dense: pair (t,d) agrees, (t,p) and (d,p) disagree
    assert taus.loc["live_tsr", "kendall_tau"] == pytest.approx(-1 / 3)
    assert taus.loc["live_tsr", "n_systems"] == 3
    f = core_live.facts(df, core_live.tau(df))
    assert f["live_best"] == df.iloc[0]["Baseline"] and f["live_n_conversations"] == 11
    assert core_live.plot(df, tmp_path / "fig") is not None


def test_asking_effect_paired_by_dialogue(tmp_path):
    import pandas as pd
    assert core_live.asking_effect(tmp_path).empty
    ids = [f"d{i}" for i in range(4)]
    runs = {"live": {"tsr": [0.0, 0.0, 1.0, 1.0], "t2r": [5.0, 5.0, 1.0, 2.0], "n_questions": [0] * 4},
            "live_ask": {"tsr": [1.0, 0.0, 1.0, 1.0], "t2r": [2.0, 5.0, 2.0, 3.0], "n_questions": [1] * 4}}
    for run, cols in runs.items():
        (tmp_path / "live" / run).mkdir(parents=True)
        pd.DataFrame({"dialogue_id": ids, "baseline": "tfidf", **cols}).to_parquet(
            tmp_path / "live" / run / "live_scores.parquet")
    df = core_live.asking_effect(tmp_path, n_boot=200).set_index("metric")
    # TSR 0.5 -> 0.75 (+0.25); T2R 3.25 -> 3.0 (-0.25): one rescued dialogue, two slowed by a turn
    assert (df.loc["tsr", "without_ask"], df.loc["tsr", "with_ask"], df.loc["tsr", "delta"]) == (0.5, 0.75, 0.25)
    assert df.loc["t2r", "delta"] == pytest.approx(-0.25) and df.loc["tsr", "n_dialogues"] == 4
    assert df.loc["tsr", "questions_per_dialogue"] == 1.0 and df.loc["tsr", "verdict"] == "insufficient n"


def test_asking_effect_refuses_a_dialogue_scored_in_one_run_only(tmp_path):
    import pandas as pd
    for run, ids in {"live": ["d0", "d1"], "live_ask": ["d0"]}.items():
        (tmp_path / "live" / run).mkdir(parents=True)
        pd.DataFrame({"dialogue_id": ids, "baseline": "tfidf", "tsr": 1.0, "t2r": 1.0, "n_questions": 0}).to_parquet(
            tmp_path / "live" / run / "live_scores.parquet")
    with pytest.raises(ValueError, match=r"1 dialogue\(s\) not scored in both runs.*'d1'"):
        core_live.asking_effect(tmp_path, n_boot=50)
