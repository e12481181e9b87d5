"""oracle.summary.oracle_summary on a two-dialogue instance worked by hand."""
import pandas as pd
import pytest

from trace_crs.oracle import oracle_instance, oracle_summary

# d1: a (q 1.0, cost 1) beats b (q 0.5, cost 3); d2: b (q 1.0, cost 3) beats a (q 0.0, cost 1).
TABLE = pd.DataFrame({"dialogue_id": ["d1", "d1", "d2", "d2"], "baseline": ["a", "b", "a", "b"],
                      "quality": [1.0, 0.5, 0.0, 1.0], "cost": [1.0, 3.0, 1.0, 3.0]})


@pytest.fixture
def summary():
    return oracle_summary(oracle_instance(TABLE), n_points=3, n_boot=0, meta={"cost_column": "usd", "runs": "r"})


def test_single_baselines_and_quality_oracle(summary):
    single = summary[summary["kind"] == "baseline"].set_index("baseline")
    assert single["mean_quality"].to_dict() == {"a": 0.5, "b": 0.75}
    assert single["total_cost"].to_dict() == {"a": 2.0, "b": 6.0}
    assert single["mean_cost"].to_dict() == {"a": 1.0, "b": 3.0}
    qo = summary[summary["kind"] == "quality_oracle"].iloc[0]
    # best per dialogue: a on d1, b on d2 -> quality 1, cost 1 + 3
    assert (qo["mean_quality"], qo["total_cost"], qo["share:a"], qo["share:b"]) == (1.0, 4.0, 0.5, 0.5)


def test_budget_curve_from_cheapest_to_oracle_cost(summary):
    curve = summary[summary["kind"] == "budget"]
    # budgets 2, 3, 4: switching d2 to b costs 2 more, so only the budget 4 affords it
    assert curve["budget"].tolist() == [2.0, 3.0, 4.0]
    assert curve["mean_quality"].tolist() == [0.5, 0.5, 1.0]
    assert curve["share:a"].tolist() == [1.0, 1.0, 0.5]


def test_columns_and_meta(summary):
    assert summary.columns[:7].tolist() == ["kind", "baseline", "budget", "feasible", "mean_quality",
                                            "total_cost", "mean_cost"]
    tail = summary.columns.tolist()[-5:]
    assert tail == ["n_dialogues", "cost_column", "runs", "n_boot", "seed"]
    assert set(summary["n_dialogues"]) == {2} and set(summary["cost_column"]) == {"usd"}
    assert "ci_low" not in summary.columns  # no bands without resamples
