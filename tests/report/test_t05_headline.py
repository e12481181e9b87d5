"""Table 5 ordering agreement: Kendall τ_b of non-LLM R@1, hand-worked."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from trace_crs.report.t05_headline import ordering_agreement


def frame(rows):
    return pd.DataFrame(rows, columns=["baseline", "column", "paper", "ours"])


def test_reversed_order_is_minus_one_and_llm_rows_ignored():
    df = frame([("popularity", "R@1", 0.1, 0.3), ("tfidf", "R@1", 0.2, 0.2), ("aspect", "R@1", 0.3, 0.1),
                ("dst", "R@1", 0.9, 0.0), ("tfidf", "CGS", 0.5, 0.5)])
    out = ordering_agreement(df)
    assert out["tau_r1_non_llm"] == pytest.approx(-1.0) and out["tau_r1_non_llm_n"] == 3


def test_one_swap_of_four():
    # pairs: 6; one discordant (c, d swapped) -> (5 - 1) / 6
    df = frame([("popularity", "R@1", 0.1, 0.1), ("tfidf", "R@1", 0.2, 0.2),
                ("aspect", "R@1", 0.3, 0.4), ("dense", "R@1", 0.4, 0.3)])
    assert ordering_agreement(df)["tau_r1_non_llm"] == pytest.approx(4 / 6)


def test_fewer_than_two_rows_is_nan():
    out = ordering_agreement(frame([("tfidf", "R@1", 0.2, 0.3)]))
    assert math.isnan(out["tau_r1_non_llm"]) and out["tau_r1_non_llm_n"] == 1


def test_composition_beside_the_paper(tmp_path):
    import pandas as pd

    from trace_crs.report.t05_headline import composition
    run = tmp_path / "runs" / "closed"
    run.mkdir(parents=True)
    texts = ['I\'d suggest A. One reviewer said: "x y z" [R1]. A is rated 4.0 stars. It is quiet.']
    pd.DataFrame({"baseline": ["tfidf"], "text": texts}).to_parquet(run / "records.parquet")
    out = composition(tmp_path).set_index("category")
    assert list(out["ours"]) == [25.0, 25.0, 25.0, 25.0]            # one sentence of each kind
    assert out.loc["Quote %", "paper"] == 57.1 and out["n_sentences"].iloc[0] == 4
