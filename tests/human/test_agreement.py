"""Krippendorff α, leave-out and Task 2 agreement against hand-worked cases and the krippendorff package."""
from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from trace_crs.human.agreement import (
    alpha,
    alphas,
    annotator_profile,
    jaccard,
    leave_out,
    reliability_data,
    task2_agreement,
)
from trace_crs.human.labels import read_labels, task1_frame

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "human"


def _t1(rows):
    """rows: (annotator, item, informativeness, naturalness, quotes, errors)."""
    return pd.DataFrame([{"annotator": a, "item_id": i, "dialogue_id": "d", "baseline": "b",
                          "informativeness": inf, "naturalness": nat, "quotes": q, "errors": e}
                         for a, i, inf, nat, q, e in rows])


def test_nominal_alpha_hand_worked():
    # coincidences o00=2, o01=o10=1, o11=4; n0=3, n1=5, n=8:
    # Do = 2/8, De = 2·3·5/(8·7) = 30/56, α = 1 − (2/8)/(30/56) = 8/15
    m = np.array([[0, 0, 1, 1], [0, 1, 1, 1]], float)
    assert alpha(m, "nominal") == pytest.approx(8 / 15)


def test_interval_alpha_hand_worked():
    # values 1,1,2,2,3,4: Do = 2·1²/6 = 1/3; De = 2·(6·35 − 13²)/(6·5) = 82/30; α = 1 − 10/82 = 36/41
    m = np.array([[1, 2, 3], [1, 2, 4]], float)
    assert alpha(m, "interval") == pytest.approx(36 / 41)


def test_perfect_agreement_and_undefined_cases():
    assert alpha(np.array([[1, 2], [1, 2]], float), "interval") == pytest.approx(1.0)
    assert np.isnan(alpha(np.array([[3, 3], [3, 3]], float), "interval"))   # one value: undefined
    assert np.isnan(alpha(np.array([[1, 2]], float), "nominal"))           # one annotator


def test_units_per_scale():
    t1 = _t1([("A", "i1", 2, 3, ["supported", "partial"], ["too_vague"]),
              ("B", "i1", 4, 3, ["supported"], ["no_errors"])])
    cite = reliability_data(t1, "cite")
    assert cite.shape == (2, 2) and np.isnan(cite[1, 1]) and cite[0, 1] == 1   # B rated one quote only
    err = reliability_data(t1, "err")
    assert err.shape == (2, 7) and err[0].sum() == 1 and err[1].sum() == 0     # 7 real categories, binary
    assert reliability_data(t1, "info").tolist() == [[2.0], [4.0]]


def test_fixture_alphas_equal_the_package_on_every_scale():
    raw, _ = read_labels(FIX / "labels.jsonl")
    key = pd.read_json(FIX / "key.jsonl", lines=True)
    t1 = task1_frame(raw, key)
    got = alphas(t1)
    for scale, level in (("info", "interval"), ("nat", "interval"), ("cite", "nominal"), ("err", "nominal")):
        expect = krippendorff.alpha(reliability_data=reliability_data(t1, scale), level_of_measurement=level)
        assert got[f"alpha_{scale}"] == pytest.approx(expect)
    assert got["mean_alpha"] == pytest.approx(np.mean([got[f"alpha_{s}"] for s in ("info", "nat", "cite", "err")]))


def test_leave_out_drops_the_named_annotators():
    raw, _ = read_labels(FIX / "labels.jsonl")
    t1 = task1_frame(raw, pd.read_json(FIX / "key.jsonl", lines=True))
    one, two = leave_out(t1, 1), leave_out(t1, 2)
    assert len(one) == 5 and len(two) == 10 and set(one["n_annotators"]) == {4}
    row = two[two["dropped"] == "A3 + A5"].iloc[0]
    assert row["alpha_info"] == pytest.approx(alphas(t1[~t1["annotator"].isin(["A3", "A5"])])["alpha_info"])
    full = alphas(t1)["mean_alpha"]
    assert one["mean_alpha_rel_change"].iloc[0] == pytest.approx((one["mean_alpha"].iloc[0] - full) / abs(full))
    with pytest.raises(ValueError, match="at least"):
        leave_out(t1, 4)


def test_annotator_profile_hand_worked():
    t1 = _t1([("A", "i1", 2, 3, [], ["too_vague", "wrong_poi"]), ("A", "i2", 4, 5, [], ["no_errors"]),
              ("B", "i1", 3, 3, [], ["no_errors"]), ("B", "i2", 5, 4, [], ["exaggeration"])])
    prof = annotator_profile(t1).set_index("annotator")
    assert prof.loc["A", "info_mean"] == 3.0 and prof.loc["A", "info_dev"] == 1.0   # |2−3|, |4−5|
    assert prof.loc["A", "nat_dev"] == pytest.approx(0.5)                          # |3−3|, |5−4|
    assert prof.loc["A", "flag_rate"] == 0.5 and prof.loc["A", "avg_cats"] == 1.0   # 2 cats, 0 cats
    assert prof.loc["B", "avg_cats"] == 0.5


def test_task2_jaccard_and_strict_majority_hand_worked():
    assert jaccard({"a", "b"}, {"b"}) == 0.5 and jaccard(set(), set()) == 1.0
    t2 = pd.DataFrame([("A", "d1", ["p1", "p2"]), ("B", "d1", ["p2"]), ("C", "d1", ["p3"]),
                       ("A", "d2", ["p1"]), ("B", "d2", ["p2"])], columns=["annotator", "dialogue_id", "pois"])
    got = task2_agreement(t2)
    # d1 pairs: 1/2, 0, 0; d2: 0 → mean 0.5/4; p2 chosen by 2 of 3 in d1 (strict majority), d2 none (1 of 2)
    assert got["mean_jaccard"] == pytest.approx(0.125)
    assert (got["n_pairs"], got["n_strict_majority"], got["n_dialogues"], got["n_responses"]) == (4, 1, 2, 5)
