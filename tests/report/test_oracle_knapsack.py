"""Oracle knapsack report on fabricated score files and records (values worked by hand).

tfidf (closed): d1 R@1 [1, 0], CGS [.5, .5], recovery 1 → joint (.5 + .5 + 1) / 3 = 2/3;
                d2 R@1 [1], CGS [1], no rejection → (1 + 1) / 2 = 1; latency 0.1 s per dialogue.
dst (closed_llm): d1 R@1 [1, 1], CGS [1, 1], recovery 1 → 1;  d2 R@1 [1], CGS [.6] → .8;
                latency 2 s (d1), 3 s (d2); d3 is not in the closed run, so it is left out.
Records: 10 prompt + 5 completion tokens per turn; tfidf has no model, dst runs on the local
llama.cpp weights (priced 0 $ by the packaged table, whatever ``cost_usd`` the record carries).
"""
import matplotlib
import pandas as pd
import pytest

from trace_crs.lm.weights import WEIGHTS
from trace_crs.report import oracle_knapsack as kr

matplotlib.use("Agg")
LOCAL_ID = f"openai/{next(iter(WEIGHTS.values())).alias}"


def _fabricate(root, scores, dst_model=LOCAL_ID):
    t = lambda d, tid, r1, cgs: {"dialogue_id": d, "turn_id": tid, "recall@1": r1, "cgs": cgs}  # noqa: E731
    scores(root, "closed", "tfidf", {}, per_turn=[t("d1", 2, 1, .5), t("d1", 4, 0, .5), t("d2", 2, 1, 1.0)],
           per_dialogue=[{"dialogue_id": "d1", "rejection_recovery": 1.0},
                         {"dialogue_id": "d2", "rejection_recovery": None}])
    scores(root, "closed_llm", "dst", {}, per_turn=[t("d1", 2, 1, 1.0), t("d1", 4, 1, 1.0), t("d2", 2, 1, .6),
                                                    t("d3", 2, 0, 0.0)],
           per_dialogue=[{"dialogue_id": "d1", "rejection_recovery": 1.0},
                         {"dialogue_id": "d2", "rejection_recovery": None},
                         {"dialogue_id": "d3", "rejection_recovery": None}])
    rec = lambda d, b, s: {"dialogue_id": d, "baseline": b, "latency_s": s, "cost_usd": 7.0,  # noqa: E731
                           "prompt_tokens": 10, "completion_tokens": 5, "model": dst_model if b == "dst" else ""}
    for run, rows in {"closed": [rec("d1", "tfidf", .05), rec("d1", "tfidf", .05), rec("d2", "tfidf", .1)],
                      "closed_llm": [rec("d1", "dst", 1.0), rec("d1", "dst", 1.0), rec("d2", "dst", 3.0),
                                     rec("d3", "dst", 1.0)]}.items():
        (root / "runs" / run).mkdir(parents=True)
        pd.DataFrame(rows).to_parquet(root / "runs" / run / "records.parquet")


def test_oracle_table_joint_quality_and_cost(tmp_path, scores):
    _fabricate(tmp_path, scores)
    table = kr.oracle_table(tmp_path).set_index(["dialogue_id", "baseline"])
    assert table["quality"].to_dict() == pytest.approx(
        {("d1", "dst"): 1.0, ("d1", "tfidf"): 2 / 3, ("d2", "dst"): 0.8, ("d2", "tfidf"): 1.0})
    assert table["cost"].to_dict() == pytest.approx(
        {("d1", "dst"): 2.0, ("d1", "tfidf"): 0.1, ("d2", "dst"): 3.0, ("d2", "tfidf"): 0.1})
    tokens = kr.oracle_table(tmp_path, cost="tokens")
    assert tokens.set_index(["dialogue_id", "baseline"]).at[("d1", "tfidf"), "cost"] == 30
    with pytest.raises(ValueError, match="cost must be one of"):
        kr.oracle_table(tmp_path, cost="dollars")


def test_curve_oracle_and_elbow(tmp_path, scores):
    _fabricate(tmp_path, scores)
    df = kr.load(tmp_path, n_points=3, n_boot=0)
    curve = df[df["kind"] == "budget"]
    # budgets: Σ min cost 0.2, midpoint 1.15 (dst on d1 costs 2: unaffordable), quality oracle 2.1.
    assert curve["budget"].tolist() == pytest.approx([0.2, 1.15, 2.1])
    assert curve["mean_quality"].tolist() == pytest.approx([5 / 6, 5 / 6, 1.0])
    qo = df[df["kind"] == "quality_oracle"].iloc[0]
    assert (qo["mean_quality"], qo["total_cost"]) == pytest.approx((1.0, 2.1))
    assert (qo["share:dst"], qo["share:tfidf"]) == (0.5, 0.5)
    elbow = df[df["kind"] == "elbow"].iloc[0]  # difference curve [0, -.5, 0]: first maximum
    assert elbow["budget"] == pytest.approx(0.2)
    assert set(df["label"].dropna()) == {"in-sample upper bound with perfect foresight"}
    facts = kr.facts(df)
    assert facts["best_single_label"] == "DST" and facts["best_single_quality"] == pytest.approx(0.9)
    assert facts["oracle_gain"] == pytest.approx(0.1) and facts["oracle_cost"] == pytest.approx(1.05)
    assert facts["n_dialogues"] == 2
    assert not (tmp_path / "tables").exists()  # the notebook writes oracle_knapsack.csv


def test_bands_and_plot(tmp_path, scores):
    _fabricate(tmp_path, scores)
    df = kr.load(tmp_path, n_points=3, n_boot=5, seed=1)
    curve = df[df["kind"] == "budget"]
    assert (curve["ci_low"] <= curve["ci_high"]).all()
    kr.plot(df, figures_dir=tmp_path / "fig")
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == ["oracle_knapsack.png", "oracle_knapsack.svg"]


def test_equal_costs_give_a_single_budget(tmp_path, scores):
    _fabricate(tmp_path, scores)
    df = kr.load(tmp_path, cost="cost_usd", n_points=5, n_boot=0)
    assert df[df["kind"] == "budget"]["budget"].tolist() == [0.0]
    assert df[df["kind"] == "quality_oracle"]["mean_quality"].iloc[0] == pytest.approx(1.0)


@pytest.mark.parametrize("model, message", [("openai/gpt-5.4-mini", "is null"), ("acme/unknown-model", "no price")])
def test_dollar_cost_of_an_unpriced_api_model_is_an_error(tmp_path, scores, model, message):
    _fabricate(tmp_path, scores, dst_model=model)
    with pytest.raises(ValueError, match=message):
        kr.oracle_table(tmp_path, cost="cost_usd")
    seconds = kr.oracle_table(tmp_path)  # seconds (and tokens) need no price
    assert seconds.set_index(["dialogue_id", "baseline"]).at[("d1", "dst"), "cost"] == pytest.approx(2.0)


def test_dollars_come_from_the_price_table_not_the_records(tmp_path, scores):
    _fabricate(tmp_path, scores)
    table = kr.oracle_table(tmp_path, cost="cost_usd")  # records say 7 $ per turn; local and no-model cost 0 $
    assert table["cost"].tolist() == [0.0, 0.0, 0.0, 0.0]
    only_tfidf = kr.oracle_table(tmp_path, baselines=["tfidf"], cost="cost_usd")
    assert only_tfidf["baseline"].unique().tolist() == ["tfidf"]


def test_elbow_text_says_so_when_the_curve_has_no_elbow():
    import pandas as pd

    from trace_crs.report.oracle_knapsack import elbow_text

    none = elbow_text(pd.DataFrame({"mean_cost": [], "mean_quality": []}))
    assert "no elbow" in none and "nan" not in none
    assert "no elbow" in elbow_text(pd.DataFrame({"mean_cost": [float("nan")], "mean_quality": [0.5]}))
    assert elbow_text(pd.DataFrame({"mean_cost": [12.5], "mean_quality": [0.4567]})) == (
        "has its elbow at 12.5 per dialogue with quality 0.457"
    )
