"""Table 28 (Likert cross-judge agreement) on hand-made judge score files."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from trace_crs.report import t28_cross_judge as t28


def _judge(res: Path, judge: str, means: dict[str, float], model: str) -> None:
    d = t28.judge_dir(res, "closed", judge)
    d.mkdir(parents=True, exist_ok=True)
    for base, m in means.items():
        (d / f"{base}.json").write_text(json.dumps({"metrics": {"judge_overall": m, "recall@1": 0.1},
                                                    "judge_usage": {"model": model, "n_turns": 4}}))


def test_not_run_says_so_and_keeps_the_paper(tmp_path):
    df = t28.load(tmp_path)
    assert "Not run" in t28.status(tmp_path) and df["ours"].isna().all()
    f = t28.facts(df)
    assert math.isnan(f["tau_ours"]) and f["n_ours"] == 0
    # the paper's printed means (6 baselines, 15 pairs): two pairs swap between the judges —
    # Dense/Spatial (GPT-4o 3.25 > 3.24, Claude 1.71 < 1.72) and Aspect/Popularity (3.16 > 3.00,
    # 1.58 < 1.62): tau = (13 - 2) / 15
    assert f["tau_paper"] == pytest.approx(11 / 15)
    assert not (tmp_path / "tables").exists()   # load() writes nothing; the notebook writes tables/t28_cross_judge.csv
    assert t28.NAME != "table28_cross_judge"      # the CoRE twin's file is another instrument's


def test_two_judges_hand_worked_agreement(tmp_path):
    _judge(tmp_path, "likert_a", {"dense": 3.0, "tfidf": 2.0, "popularity": 1.0, "aspect": 4.0}, "openai/a")
    _judge(tmp_path, "likert_b", {"dense": 2.5, "tfidf": 2.0, "popularity": 1.5, "aspect": 1.8}, "openai/b")
    df = t28.load(tmp_path)
    wide = df.pivot(index="baseline", columns="column", values="ours")
    assert wide.loc["dense", "GPT-4o"] == 3.0 and wide.loc["aspect", "Claude"] == 1.8
    f = t28.facts(df)
    # A ranks aspect > dense > tfidf > popularity; B ranks dense > tfidf > aspect > popularity:
    # discordant pairs (aspect, dense), (aspect, tfidf) -> tau = (6 - 2·2) / 6; rho = 1 - 6·(4+1+1+0)/(4·15)
    assert f["tau_ours"] == pytest.approx(2 / 6) and f["rho_ours"] == pytest.approx(0.4) and f["n_ours"] == 4
    assert f["gap_ours"] == pytest.approx(2.5 - 1.95)
    assert t28.status(tmp_path).startswith("Judges: GPT-4o column = `likert_a` (`openai/a`)")
    ag = t28.agreement_table(df).set_index("judges")
    assert ag.loc["ours", "kendall_tau"] == pytest.approx(2 / 6)
