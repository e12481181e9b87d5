"""The presentation layer (report/present.py): hand-worked cells, captions and highlights."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trace_crs.report import present


@pytest.mark.parametrize("value, text", [
    (0.123456, "0.123"), (0.5, "0.500"), (1.0, "1.000"), (0.0, "0.000"), (-0.25, "-0.250"),
    (0.00123456, "0.001"), (0.0015, "0.002"),   # the paper's 3 decimals, never more
    (0.0004, "< 0.001"), (-0.0004, "> -0.001"),   # non-zero but would read as 0.000
    (0.0005, "0.001"), (-0.0000, "0.000"),
    (12.3456, "12.346"), (1234.5, "1,234"), (np.float64(0.1), "0.100"),
    (3, "3"), (np.int64(42), "42"), (True, "True"), ("text", "text"),
    (float("nan"), "—"), (None, "—"), (pd.NA, "—"), (float("inf"), "∞"),
])
def test_number(value, text):
    assert present.number(value) == text


@pytest.mark.parametrize("args, text", [
    ((0.25, 0.18, 0.31), "0.250 [0.18, 0.31]"),
    ((0.25, 0.18, 0.31, True, 40), "0.250 [0.18, 0.31] (n = 40)"),     # a cell on another n than its row
    ((1 / 3, np.nan, np.nan, False, 3), "0.333 (insufficient n, n = 3)"),
    ((1 / 3, np.nan, np.nan, False), "0.333 (insufficient n)"),
    ((0.5, 0.5, 0.5, False, 30), "0.500 (insufficient n, n = 30)"),     # degenerate interval
    ((0.5, np.nan, np.nan, True, None), "0.500 (insufficient n)"),
    ((np.nan, 0.1, 0.2), "—"),
])
def test_interval(args, text):
    assert present.interval(*args) == text


def test_table_hides_the_index_labels_keys_and_lifts_constants():
    df = pd.DataFrame({"baseline": ["tfidf", "llm_zero_shot"], "recall@1": [0.1234567, np.nan],
                       "n_boot": [1000, 1000], "seed": [42, 42]})
    shown = present.table(df, "Cap")
    assert list(shown.data.columns) == ["baseline", "recall@1"]
    assert shown.data["baseline"].tolist() == ["TF-IDF", "LLM Zero-Shot"]
    assert shown.lifted == {"n boot": "1000", "seed": "42"}
    html = shown._repr_html_()
    assert html.startswith('<div class="trace-table-wrap">') and 'class="trace-table"' in html
    assert "<caption>Cap — n boot = 1000; seed = 42</caption>" in html
    assert "0.123" in html and "0.1234567" not in html and "—" in html
    assert "nan" not in html.lower().replace("trace", "") and "row_heading" not in html   # no NaN, no index


def test_a_named_index_becomes_the_first_column_and_nothing_is_lifted_from_one_row():
    df = pd.DataFrame({"x": [0.5]}, index=pd.Index(["tfidf"], name="baseline"))
    shown = present.table(df)
    assert shown.data.to_dict("list") == {"baseline": ["TF-IDF"], "x": [0.5]} and shown.lifted == {}


def test_a_baseline_column_beside_the_label_column_is_dropped():
    df = pd.DataFrame({"Baseline": ["TF-IDF", "Dense"], "baseline": ["tfidf", "dense"], "v": [1.0, 2.0]})
    assert list(present.table(df).data.columns) == ["Baseline", "v"]


LONG = pd.DataFrame({"Baseline": ["TF-IDF", "TF-IDF", "DST", "DST"], "column": ["R@1", "CGS", "R@1", "CGS"],
                     "paper": [0.25, 0.8, 0.4, np.nan], "ours": [0.3, np.nan, 0.45, 0.5],
                     "ci_low": [0.28, np.nan, 0.2, np.nan], "ci_high": [0.35, np.nan, 0.6, np.nan]})


def test_comparison_groups_paper_ours_delta_and_says_not_run():
    shown = present.comparison(LONG)
    data = shown.data
    assert list(data.columns) == [("", "Baseline"), ("R@1", "paper"), ("R@1", "ours"), ("R@1", "Δ"),
                                  ("CGS", "paper"), ("CGS", "ours"), ("CGS", "Δ")]
    assert data[("R@1", "Δ")].tolist() == ["0.050", "0.050"]
    assert data[("CGS", "ours")].tolist() == ["not run", "0.500"]   # printed but not computed / not printed
    assert data[("CGS", "paper")].tolist() == ["0.800", "—"]
    html = shown._repr_html_()
    # TF-IDF R@1: printed 0.25 lies below our interval [0.28, 0.35] -> highlighted; DST's 0.4 inside
    assert html.count(present.DEVIATES_CLASS) == 1


def test_a_computed_cell_without_a_value_says_undefined_and_why_in_the_caption():
    long = LONG.assign(undefined=["", "pool of one type", "", ""])   # TF-IDF's CGS: computed, no value
    shown = present.comparison(long, caption="Table X")
    assert shown.data[("CGS", "ours")].tolist() == ["undefined", "0.500"]
    assert shown.styler.caption == "Table X undefined (CGS): pool of one type."
    assert present.comparison(LONG).data[("CGS", "ours")].tolist() == ["not run", "0.500"]


def test_a_cell_that_needs_the_users_input_says_so_and_names_it_in_the_caption():
    from trace_crs.report import compare
    mask = pd.Series([True, True, False, False])   # TF-IDF's row waits for an API model
    long = compare.needs(LONG, mask, "an API model")
    assert long["needs"].tolist() == ["", "an API model", "", ""]   # its R@1 has a value: not marked
    shown = present.comparison(long, caption="Table X")
    assert shown.data[("CGS", "ours")].tolist() == ["needs input", "0.500"]
    assert shown.data[("R@1", "ours")].tolist() == ["0.300", "0.450"]
    assert shown.styler.caption == "Table X needs input (CGS): an API model."
    both = compare.needs(long.assign(undefined=["", "", "", ""]), pd.Series([False] * 4), "other")
    assert both["needs"].tolist() == long["needs"].tolist()   # a second call keeps the first marks


def test_axes_split_a_wide_table_and_skip_empty_axes():
    stack = present.axes(LONG, {"accuracy": ("R@1",), "grounding": ("CGS",), "recovery": ("TSR",)}, "Table 5")
    assert [t.styler.caption for t in stack.tables] == ["Table 5: accuracy", "Table 5: grounding"]
    assert stack._repr_html_().count("trace-table-wrap") == 2


def test_folded_is_collapsed_html():
    shown = present.folded(present.table(pd.DataFrame({"a": [1]})), "Provenance")
    assert shown._repr_html_().startswith("<details class=\"trace-folded\"><summary>Provenance</summary>")


def test_interval_tables_lift_only_n_and_split_by_axis():
    part = pd.DataFrame({"Baseline": ["A", "A", "B", "B"], "column": ["R@1", "TSR", "R@1", "TSR"],
                         "ours": [0.5, 1.0, 0.25, 1.0], "ci_low": [0.4, np.nan, 0.1, np.nan],
                         "ci_high": [0.6, np.nan, 0.3, np.nan], "n_clusters": [25, 25, 25, 25],
                         "sufficient": [True, False, True, False], "paper": [0.7, 1.0, 0.2, 1.0]})
    from trace_crs.report import compare
    ci = compare.ci_table(part)
    shown = present.table(ci)
    assert shown.lifted == {"n": "25"}                                     # TSR is constant but a result
    assert shown.data["TSR"].tolist() == ["1.000 (insufficient n)"] * 2
    stack = present.split(ci, {"accuracy": ("R@1",), "recovery": ("TSR",), "none": ("X",)}, "CI")
    assert [list(t.data.columns) for t in stack.tables] == [["Baseline", "R@1"], ["Baseline", "TSR"]]
    assert stack.tables[0]._repr_html_().count(present.DEVIATES_CLASS) == 1   # A: 0.7 outside [0.4, 0.6]
    assert 'trace-fit' in present.comparison(LONG)._repr_html_() and 'trace-fit' not in shown._repr_html_()


def test_by_shows_each_cause_once_as_a_caption():
    df = pd.DataFrame({"Baseline": ["TF-IDF", "DST", "Dense"], "diff": [0.1, -0.2, 0.3],
                       "cause": ["KB differs: synthetic reviews", "local LM", "KB differs: synthetic reviews"]})
    stack = present.by(df, "cause", "Deviations")
    assert [t.styler.caption for t in stack.tables] == ["Deviations: KB differs: synthetic reviews",
                                                         "Deviations: local LM"]
    assert [t.data["Baseline"].tolist() for t in stack.tables] == [["TF-IDF", "Dense"], ["DST"]]
    assert all("cause" not in t.data.columns for t in stack.tables)


def test_row_numbers_of_a_filtered_frame_are_not_shown_but_string_labels_are():
    df = pd.DataFrame({"kind": ["a", "b", "a"], "v": [1.0, 2.0, 3.0]})
    assert list(present.table(df[df["kind"] == "a"]).data.columns) == ["kind", "v"]
    labelled = pd.DataFrame({"v": [1.0, 2.0]}, index=["x", "y"])
    assert present.table(labelled).data.iloc[:, 0].tolist() == ["x", "y"]


def test_count_columns_stored_as_float_show_as_integers():
    df = pd.DataFrame({"Baseline": ["A", "B"], "n_clusters": [60.0, np.nan], "ours": [1.0, 0.5]})
    html = present.table(df)._repr_html_()
    assert ">60<" in html and "60.000" not in html and ">1.000<" in html


def test_chunks_group_printed_columns_in_order_at_most_three():
    assert present.chunks(["a", "b", "c", "d", "b"]) == {"a, b, c": ["a", "b", "c"], "d": ["d"]}
    assert present.chunks(["a", "b", "c"], size=2) == {"a, b": ["a", "b"], "c": ["c"]}
    assert present.chunks([]) == {}


def test_axes_without_groups_splits_a_wide_comparison_into_fitting_tables():
    long = pd.DataFrame({"Baseline": ["TF-IDF"] * 5, "column": list("vwxyz"), "paper": [0.1] * 5, "ours": [0.2] * 5})
    stack = present.axes(long, caption="Table 9")
    assert [t.styler.caption for t in stack.tables] == ["Table 9: v, w, x", "Table 9: y, z"]
    assert all(t.fit for t in stack.tables)
    assert [list(t.data.columns.get_level_values(0).unique()) for t in stack.tables] == [["", "v", "w", "x"], ["", "y", "z"]]
