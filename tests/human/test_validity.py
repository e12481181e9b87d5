"""Majority vote, citation precision, Table 10 / 12 / 14 / 15 twins on hand-worked cases."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from trace_crs.human.validity import (
    error_breakdown,
    item_frame,
    majority_label,
    metric_correlations,
    paired_tests,
    table10,
)


@pytest.mark.parametrize("votes,expect", [
    (["supported", "supported", "partial"], "supported"),
    (["supported", "partial"], "partial"),                    # tie → less supportive
    (["supported", "not_supported", "partial", "partial"], "partial"),
    (["supported", "not_supported"], "not_supported"),
])
def test_majority_label(votes, expect):
    assert majority_label(votes) == expect


def _rows(item, dialogue, base, labels):
    return [{"annotator": a, "item_id": item, "dialogue_id": dialogue, "baseline": base, "informativeness": inf,
             "naturalness": nat, "quotes": q, "errors": e, "gs": 0.5} for a, inf, nat, q, e in labels]


def test_item_frame_and_table10_hand_worked():
    t1 = pd.DataFrame(
        _rows("i1", "d1", "x", [("A", 2, 3, ["supported", "partial"], ["no_errors"]),
                                ("B", 4, 3, ["supported", "not_supported"], ["no_errors"]),
                                ("C", 3, 3, ["partial", "not_supported"], ["too_vague"])])
        + _rows("i2", "d2", "x", [("A", 1, 1, [], ["too_vague"]), ("B", 1, 1, [], ["too_vague"]),
                                  ("C", 1, 1, [], ["no_errors"])]))
    items = item_frame(t1).set_index("item_id")
    # quote 0: S,S,P → S; quote 1: P,N,N → N; precision 1/2; 2 of 3 said no_errors → error-free
    assert items.loc["i1", ["supported", "partial", "not_supported"]].tolist() == [1, 0, 1]
    assert items.loc["i1", "cite_prec"] == 0.5 and items.loc["i1", "error_free"] == 1.0
    assert items.loc["i1", "info"] == 3.0 and items.loc["i1", "gs"] == 0.5
    assert np.isnan(items.loc["i2", "cite_prec"]) and items.loc["i2", "error_free"] == 0.0
    t10 = table10(item_frame(t1)).iloc[0]
    assert t10["info_mean"] == 2.0 and t10["cite_prec"] == 0.5 and t10["n_items"] == 2   # pooled 1/(1+0+1)
    eb = error_breakdown(t1).set_index(["scope", "category"])
    assert eb.loc[("all", "too_vague"), "share"] == 0.5 and eb.loc[("all", "no_errors"), "share"] == 0.5


def test_metric_correlations_match_scipy_and_bracket():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    items = pd.DataFrame({"gs": x, "cite_prec": x + rng.normal(size=40), "info": np.r_[np.nan, x[1:]]})
    out = metric_correlations(items, ["gs"], ["cite_prec", "info"], n_boot=200, seed=1).set_index(["human", "method"])
    sp = out.loc[("cite_prec", "spearman")]
    assert sp["r"] == pytest.approx(stats.spearmanr(items["gs"], items["cite_prec"])[0])
    assert sp["ci_low"] < sp["r"] < sp["ci_high"] and sp["n"] == 40
    assert out.loc[("info", "kendall"), "n"] == 39 and out.loc[("info", "kendall"), "r"] == pytest.approx(1.0)
    again = metric_correlations(items, ["gs"], ["cite_prec", "info"], n_boot=200, seed=1)
    pd.testing.assert_frame_equal(out.reset_index()[again.columns], again)   # seeded: identical


def test_paired_tests_use_scipy_ttest_rel():
    items = pd.DataFrame({"dialogue_id": ["d1", "d2", "d3"] * 2, "baseline": ["a"] * 3 + ["b"] * 3,
                          "info": [3.0, 4.0, 5.0, 1.0, 3.0, 2.0]})
    row = paired_tests(items, ["info"]).iloc[0]
    ref = stats.ttest_rel([3, 4, 5], [1, 3, 2])
    assert (row["a"], row["b"], row["n"]) == ("a", "b", 3)
    assert row["t"] == pytest.approx(ref.statistic) and row["mean_diff"] == pytest.approx(2.0)
