"""The start-vs-branch agreement table (agreement_compare.py) on hand-worked paired cases."""
from __future__ import annotations

import pandas as pd
import pytest

from agreement_compare import compare


def _cases(flags: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"fixture": "f", "category": "c", "text": [f"t{i}" for i in range(len(flags))], "agree": flags})


def test_discordant_pairs_and_exact_mcnemar():
    # 3 both right, 5 fixed (start wrong, branch right), 0 broken, 2 both wrong: n = 10.
    start = _cases([True] * 3 + [False] * 5 + [False] * 2)
    branch = _cases([True] * 3 + [True] * 5 + [False] * 2)
    row = compare(start, branch).iloc[0]
    assert (row["n"], row["start_k"], row["branch_k"], row["fixed"], row["broken"]) == (10, 3, 8, 5, 0)
    assert row["mcnemar_p"] == pytest.approx(2 * 0.5**5)  # exact two-sided binomial on 5 vs 0
    assert row["start_lo"] < 0.3 < row["start_hi"] and row["branch_lo"] < 0.8 < row["branch_hi"]


def test_no_discordant_pair_gives_p_one():
    same = _cases([True, False, True])
    assert compare(same, same).iloc[0]["mcnemar_p"] == pytest.approx(1.0)


def test_different_cases_are_refused():
    with pytest.raises(ValueError):
        compare(_cases([True, True]), _cases([True]))
