"""Cost against quality (report.core_cost): median replayed model seconds per turn per baseline,
the first run holding a baseline wins; joined to the live CoRE ranking; drawn on a log axis."""
from __future__ import annotations

import math

import pandas as pd

from trace_crs.report import core_cost


def test_model_seconds_median_first_run_wins_and_plot(tmp_path):
    for run, rows in [("closed", [("tfidf", 0.001), ("tfidf", 0.003), ("tfidf", 0.002)]),
                      ("closed_llm", [("llm_zero_shot", 2.0), ("llm_zero_shot", 6.0), ("tfidf", 9.0)])]:
        (tmp_path / "runs" / run).mkdir(parents=True)
        pd.DataFrame(rows, columns=["baseline", "latency_s"]).to_parquet(tmp_path / "runs" / run / "records.parquet")
    cost = core_cost.model_seconds(tmp_path).set_index("baseline")
    assert math.isclose(cost.loc["tfidf", "model_s_per_turn"], 0.002) and cost.loc["tfidf", "n_turns"] == 3
    assert cost.loc["llm_zero_shot", "model_s_per_turn"] == 4.0          # median of 2 and 6
    live = pd.DataFrame({"Baseline": ["TF-IDF", "LLM Zero-Shot", "Popularity"],
                         "baseline": ["tfidf", "llm_zero_shot", "popularity"], "n": [20, 20, 20],
                         "core_avg": [2.5, 3.0, float("nan")], "ci_low": [2.0, 2.5, float("nan")],
                         "ci_high": [3.0, 3.5, float("nan")]})
    df = core_cost.table(live, core_cost.model_seconds(tmp_path))
    assert df["model_s_per_turn"].tolist()[:2] == [0.002, 4.0] and math.isnan(df["model_s_per_turn"].iloc[2])
    fig = core_cost.plot(df, tmp_path / "fig")
    assert fig is not None and fig.axes[0].get_xscale() == "log" and (tmp_path / "fig" / "core_live_cost.png").exists()


def test_nothing_to_draw(tmp_path):
    empty = core_cost.table(pd.DataFrame(columns=["Baseline", "baseline", "n", "core_avg", "ci_low", "ci_high"]),
                            core_cost.model_seconds(tmp_path))
    assert empty.empty and core_cost.plot(empty, tmp_path) is None
