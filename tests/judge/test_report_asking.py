"""CoRE with asking against without (trace_crs.report.core_asking) on hand-built judge records:
conversations paired by id, failures left unpaired, the paired bootstrap's n, Δ and verdict."""
import json

import pytest

from trace_crs.judge.core import FactorResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record
from trace_crs.report import core_asking


def write(path, convs):
    """convs: conversation id -> (rating of every factor but proactiveness, proactiveness); None: failed."""
    lines = []
    for cid, (r, pro) in convs.items():
        results = {n: FactorResult(factor=n, rating=pro if n == "proactiveness" else r, rationale="r", attempts=1)
                   for n in FACTORS}
        lines.append(judged_record(cid, cid.partition("/")[0], results, None, {"mode": "per-factor"}, {}))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_not_run_is_empty(tmp_path):
    df = core_asking.load(tmp_path)
    assert df.empty and core_asking.facts(df) == {"ask_judged_baselines": 0, "ask_judged_pairs": 0,
                                                   "ask_judged_max_n": 0}


def test_no_common_conversation_is_counted_not_dropped(tmp_path):
    write(tmp_path / "judge/live_ask/core_a.jsonl", {"tfidf/d0": (3, 3)})
    write(tmp_path / "judge/live/core_a.jsonl", {"tfidf/d1": (3, 3)})
    df = core_asking.load(tmp_path)
    assert set(df["metric"]) == set(core_asking.METRICS) and (df["n"] == 0).all()
    assert (df["n_unpaired"] == 2).all() and (df["verdict"] == "no conversation rated on both sides").all()
    assert core_asking.facts(df)["ask_judged_baselines"] == 0


def test_pairs_by_conversation_and_family(tmp_path):
    write(tmp_path / "judge/live_ask/core_a.jsonl", {
        "tfidf/d0": (3, 4), "tfidf/d1": (3, 4), "tfidf/d2": (2, 4), "tfidf/d3": (None, 4),
        "tfidf/d4": (3, 3),                                    # judged with asking only
        "dense/d0": (4, 4)})                                   # dense: never judged without asking
    write(tmp_path / "judge/live/core_a.jsonl", {
        "tfidf/d0": (2, 1), "tfidf/d1": (2, 1), "tfidf/d2": (2, 1), "tfidf/d3": (2, 1),
        "llm_zero_shot/d0": (3, 3), "llm_zero_shot/d1": (1, 3)})   # the LLM run asks
    write(tmp_path / "judge/live_llm_noask/core_a.jsonl", {"llm_zero_shot/d0": (1, 0), "llm_zero_shot/d1": (1, 0)})
    df = core_asking.load(tmp_path, n_boot=200)
    got = df.set_index(["baseline", "metric"])
    assert set(df["baseline"]) == {"tfidf", "llm_zero_shot"}
    # tfidf CoRE-Avg (mean of the 12 factors, proactiveness one of them): with asking d0, d1 =
    # (11*3 + 4)/12, d2 = (11*2 + 4)/12; without (11*2 + 1)/12 each; d3's "with" side failed
    # every factor but proactiveness, so it has no CoRE-Avg and is unpaired; d4 was judged with
    # asking only, so it is unpaired for every metric
    t = got.loc[("tfidf", "core_avg")]
    assert (t["n"], t["n_unpaired"]) == (3, 2)
    assert (t["with_ask"], t["without_ask"]) == pytest.approx((100 / 36, 23 / 12))
    assert t["delta"] == pytest.approx(31 / 36) and 3 / 12 <= t["ci_low"] <= 31 / 36 <= t["ci_high"] <= 14 / 12
    assert t["verdict"] == "insufficient n"                       # 3 dialogues < 20
    p = got.loc[("tfidf", "proactiveness")]
    assert p["n_unpaired"] == 1
    assert (p["n"], p["delta"], p["ci_low"], p["ci_high"]) == (4, 3.0, 3.0, 3.0)
    llm = got.loc[("llm_zero_shot", "recoverability")]
    assert (llm["n"], llm["with_ask"], llm["without_ask"], llm["delta"]) == (2, 2.0, 1.0, 1.0)
    f = core_asking.facts(df)
    assert f == {"ask_judged_baselines": 2, "ask_judged_pairs": 5, "ask_judged_max_n": 4}


def test_enough_dialogues_gives_a_verdict(tmp_path):
    write(tmp_path / "judge/live_ask/core_a.jsonl", {f"tfidf/d{k:02d}": (3 + k % 2, 2) for k in range(20)})
    write(tmp_path / "judge/live/core_a.jsonl", {f"tfidf/d{k:02d}": (2, 2) for k in range(20)})
    got = core_asking.load(tmp_path, n_boot=200).set_index("metric")
    # per dialogue: with (11*3 + 2)/12 or (11*4 + 2)/12, without (11*2 + 2)/12: Δ = 11/12 or 22/12
    assert got.loc["core_avg", "delta"] == pytest.approx(16.5 / 12) and got.loc["core_avg", "verdict"] == "significant"
    assert 11 / 12 <= got.loc["core_avg", "ci_low"] < 16.5 / 12 < got.loc["core_avg", "ci_high"] <= 22 / 12
    assert got.loc["proactiveness", "verdict"] == "insufficient n"   # Δ = 0 on every dialogue: a point interval
