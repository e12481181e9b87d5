"""report.diagnosis: the verdict rule and the gap / τ closures on a constructed variants frame."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.report import diagnosis
from trace_crs.stats.diagnosis import DIALOGUE_METRICS, TURN_METRICS


@pytest.mark.parametrize("low, high, expected", [
    (0.8, 0.95, "explains"), (0.75, 1.0, "explains"), (0.1, 0.9, "partly"), (0.0, 0.2, "does not"),
    (-0.5, 0.1, "does not"), (-0.3, 0.6, "not resolved"), (float("nan"), 0.3, "not resolved"),
])
def test_verdict_rule(low, high, expected):
    assert diagnosis.verdict(low, high) == expected


def _frame(tmp_path):
    """30 dialogues, one turn each.  headline: every non-LLM baseline's R@3 = paper + 0.2 on every
    turn; ranked_list=response: R@3 = the paper's value exactly; t2r_count=system: = headline."""
    printed = diagnosis.paper_values()
    rows = []
    for variant, shift in (("headline", 0.2), ("ranked_list=response", 0.0), ("t2r_count=system", 0.2)):
        for b in printed.index:
            for d in range(30):
                row = {"variant": variant, "baseline": b, "dialogue_id": f"d{d:02d}", "n_turns": 1,
                       **{f"{m}_sum": 0.5 for m in TURN_METRICS}, **{m: 1.0 for m in DIALOGUE_METRICS}}
                row["recall@3_sum"] = printed.loc[b, "recall@3"] + shift
                rows.append(row)
    path = tmp_path / diagnosis.FILE
    path.parent.mkdir(parents=True)
    pd.DataFrame(rows).assign(run="closed", n_dialogues=30).to_parquet(path)
    return printed


def test_closures_by_construction(tmp_path):
    printed = _frame(tmp_path)
    df = diagnosis.load(tmp_path, n_boot=50)
    r3 = df[(df["column"] == "R@3") & (df["pattern"] == "R@3 and MRR far above the paper")].set_index("variant")
    assert r3.loc["headline", "gap"] == pytest.approx(0.2)
    assert r3.loc["headline", "verdict"] == "reference"
    exact = r3.loc["ranked_list=response"]
    assert exact["gap"] == pytest.approx(0.0) and exact["gap_closure"] == pytest.approx(1.0)
    assert exact["verdict"] == "explains"
    # a constant shift keeps the ordering: τ equals τ_b of the paper against itself
    assert exact["tau"] == pytest.approx(r3.loc["headline", "tau"])
    assert r3.loc["headline", "tau"] == pytest.approx(1.0)
    assert r3.loc["headline", "n_baselines"] == len(printed) and r3.loc["headline", "n_dialogues"] == 30
    knowledge = df[df["pattern"] == "Knowledge-Enh. first on R@1"]
    assert knowledge["rank_among_non_llm"].notna().all() and r3["rank_among_non_llm"].isna().all()
    causes = diagnosis.causes(df)
    assert causes[("R@3", "tfidf")].startswith("R@3 and MRR far above the paper: ranked_list=response explains")
    assert "TSR lower: unexplained (tested:" in causes[("TSR", "tfidf")]


def test_values_and_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="make diagnosis"):
        diagnosis.load(tmp_path)
    printed = _frame(tmp_path)
    v = diagnosis.values(tmp_path, n_boot=20)
    cell = v[(v["variant"] == "headline") & (v["baseline"] == "tfidf") & (v["column"] == "R@3")].iloc[0]
    assert cell["ours"] == pytest.approx(printed.loc["tfidf", "recall@3"] + 0.2)
    assert cell["ci_low"] == pytest.approx(cell["ours"]) and cell["ci_high"] == pytest.approx(cell["ours"])
    assert np.isfinite(v["paper"]).all()
