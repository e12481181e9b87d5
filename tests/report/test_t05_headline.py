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


def test_grounding_columns_get_their_own_keys_and_a_constant_column_is_undefined():
    # CGS: paper order a<b<c, ours b<a<c -> concordant pairs (a,c),(b,c), discordant (a,b): τ = (2-1)/3
    df = frame([("popularity", "CGS", 0.1, 0.5), ("tfidf", "CGS", 0.2, 0.4), ("aspect", "CGS", 0.3, 0.9),
                ("popularity", "CiteDensity", 0.1, 0.3), ("tfidf", "CiteDensity", 0.2, 0.3),
                ("aspect", "CiteDensity", 0.3, 0.3)])
    cgs = ordering_agreement(df, "CGS")
    assert cgs["tau_cgs_non_llm"] == pytest.approx(1 / 3) and cgs["tau_cgs_non_llm_n"] == 3
    cd = ordering_agreement(df, "CiteDensity")
    assert math.isnan(cd["tau_cd_non_llm"]) and cd["tau_cd_non_llm_n"] == 3


def test_ordering_table_lists_every_column_r1_and_grounding_first():
    from trace_crs.report.t05_headline import COLUMNS, ordering_table

    df = frame([("popularity", "R@1", 0.1, 0.3), ("tfidf", "R@1", 0.2, 0.2), ("aspect", "R@1", 0.3, 0.1)])
    out = ordering_table(df)
    assert list(out["Metric"][:3]) == ["R@1", "CGS", "CiteDensity"] and set(out["Metric"]) == set(COLUMNS)
    assert out.loc[0, "Kendall τ_b"] == pytest.approx(-1.0) and out.loc[0, "n baselines"] == 3
    assert out.set_index("Metric").loc["MRR", "n baselines"] == 0
