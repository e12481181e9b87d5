"""Abstention metrics on hand-worked cases."""
from __future__ import annotations

import math

import pytest

from trace_crs.metrics.abstention import abstains, abstention_scores, tau_sweep


def test_marker():
    assert abstains("[Unsolved] Nothing fits.") and abstains("sorry [ unsolved ]")
    assert not abstains("I'd suggest Luigi.") and not abstains("")


def test_hand_worked_counts():
    # items: U U U S S S S ; abstained: Y Y N Y N N N -> TP 2, FN 1, FP 1
    out = abstention_scores([1, 1, 0, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0])
    assert (out["tp"], out["fp"], out["fn"]) == (2, 1, 1)
    assert out["precision"] == pytest.approx(2 / 3) and out["recall"] == pytest.approx(2 / 3)
    assert out["f1"] == pytest.approx(2 / 3) and out["false_abstention_rate"] == pytest.approx(1 / 4)


def test_never_abstaining_and_no_unsolvable():
    never = abstention_scores([0, 0, 0], [1, 0, 0])
    assert math.isnan(never["precision"]) and never["recall"] == 0.0 and never["false_abstention_rate"] == 0.0
    assert math.isnan(abstention_scores([0, 1], [0, 0])["recall"])


def test_tau_sweep():
    # best scores 0.1 0.2 (unsolvable), 0.3 0.9 (solvable); tau 0.25 abstains exactly on the unsolvable ones
    df = tau_sweep([0.1, 0.2, 0.3, 0.9], [1, 1, 0, 0], [0.0, 0.25, 0.5])
    assert list(df["recall"]) == [0.0, 1.0, 1.0]
    assert list(df["false_abstention_rate"]) == [0.0, 0.0, 0.5]
    assert df.loc[1, "f1"] == 1.0 and df.loc[2, "precision"] == pytest.approx(2 / 3)
