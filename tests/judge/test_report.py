"""The CoRE chapter's report module on saved judged records (and on none: the smoke profile)."""
import json
import math

import pytest

from trace_crs.judge.core import FactorResult
from trace_crs.judge.debate import DebateResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record
from trace_crs.report import core_judge

MEANS = {"core_a": {"tfidf": 3, "popularity": 1, "dense": 2}, "core_b": {"tfidf": 2, "popularity": 0, "dense": 1}}


def write(results_dir, judge):
    path = core_judge.judged_path(results_dir, "closed", judge)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for system, base in MEANS[judge].items():
        for k in range(2):                                   # ratings base - 1 and base + 1, clipped to 0-4
            r = min(4, max(0, base - 1 + 2 * k))
            results = {n: FactorResult(n, r, "why", 1) for n in FACTORS}
            chat = [{"evaluator": e, "statement": "ok", "score": 50, "round": 1}
                    for e in ("Common User", "Domain Expert", "Linguist", "HCI Expert")]
            lines.append(judged_record(f"{system}/d{k}", system, results, DebateResult(50.0, 1, chat, True),
                                       {"mode": "per-factor"}, {}))
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_not_run_degrades_to_a_message(tmp_path):
    assert "not judged on this profile" in core_judge.status(tmp_path, "closed", ["core_a"])
    df = core_judge.load(tmp_path, "closed", "core_a")
    assert df.empty and core_judge.plot(df) is None and core_judge.debate_example(tmp_path).empty
    t28 = core_judge.table28(tmp_path)
    assert (t28["needs"] == core_judge.T28_NEEDS).all()   # both columns wait for the API judge pair
    f = core_judge.facts(df, t28)
    assert f["n_baselines"] == 0 and math.isnan(f["tau_ours"])
    assert f["tau_paper"] == pytest.approx(core_judge.agreement(t28)["paper"]["kendall_tau"])
    assert f["core_multi_agent_r"] == 0.698


def test_factor_means_table28_and_debate(tmp_path):
    write(tmp_path, "core_a")
    write(tmp_path, "core_b")
    df = core_judge.load(tmp_path, "closed", "core_a")
    assert list(df["baseline"]) == ["tfidf", "dense", "popularity"]
    # popularity: ratings 0 and 2 -> 1.0; tfidf: 2 and 4 -> 3.0
    assert df.set_index("baseline").loc["popularity", "core_avg"] == 1.0 and df["n_transcripts"].tolist() == [2, 2, 2]
    assert not (tmp_path / "tables").exists()  # load only reads; the notebook writes the CSV
    core_judge.plot(df, figures_dir=tmp_path / "fig")
    assert (tmp_path / "fig" / "core_judge_factors.png").exists()
    t28 = core_judge.table28(tmp_path)
    ours = t28.pivot(index="baseline", columns="column", values="ours")
    # core_b: tfidf 1 and 3 -> 2.0; popularity 0 and 1 (clipped -1 -> 0) -> 0.5
    assert ours.loc["tfidf", "GPT-4o"] == 3.0 and ours.loc["popularity", "Claude"] == 0.5
    assert (t28["needs"] == "").all()   # both judges ran: nothing waits for an input
    (tmp_path / "judge" / "closed" / "core_b.jsonl").unlink()
    only_a = core_judge.table28(tmp_path)
    assert set(only_a.loc[only_a["needs"] != "", "column"]) == {"Claude"}   # judge B's column only
    agree = core_judge.agreement(t28)
    assert agree["ours"]["kendall_tau"] == pytest.approx(1.0) and agree["ours"]["n_systems"] == 3
    chat = core_judge.debate_example(tmp_path)
    assert len(chat) == 4 and set(chat["score"]) == {50}
    assert core_judge.reported("table22_qwk").shape == (12, 11)
