"""The held-out real-request fixture (``data/real_requests_heldout.yaml``): written before the
reader was run on it and never used to choose a fix, so its agreement is the honest measure of
the preference reader.  As for the dev fixture, every case agrees with its hand reading unless it
records a ``gap`` (the cases the reader got wrong when measured), which the test keeps visible:
a gap that is closed shows up and its key is removed."""
from __future__ import annotations

import pytest

from real_requests import HELDOUT, agreement, disagreements, load_cases

CASES = list(load_cases(HELDOUT))


@pytest.mark.parametrize(("category", "case"), CASES, ids=[f"{c}:{k['text'][:40]}" for c, k in CASES])
def test_reader_agrees_with_the_held_out_hand_reading(category, case):
    diff = disagreements(case)
    if "gap" in case:
        assert diff, f"held-out gap now read as a person would — drop its `gap`: {case['gap']}"
    else:
        assert not diff, diff


def test_held_out_fixture_is_large_enough_per_category():
    per: dict[str, int] = {}
    for category, _ in CASES:
        per[category] = per.get(category, 0) + 1
    assert len(CASES) >= 40 and min(per.values()) >= 5, per


def test_agreement_table_counts_the_cases_without_a_gap():
    # Independent count: a case without `gap` agrees (the test above), one with `gap` does not.
    table = agreement(HELDOUT).set_index("category")
    want = sum("gap" not in case for _, case in CASES)
    assert (table.loc["all", "n"], table.loc["all", "k"]) == (len(CASES), want)
    assert table.loc["all", "lo"] < want / len(CASES) < table.loc["all", "hi"]
