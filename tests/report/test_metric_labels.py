"""Report tables take their metric columns from the metric registry, spelled as the paper prints them."""
import pandas as pd
import pytest

from trace_crs.report import deviations, paper, t05_headline, t06_per_axis, t09_practical, t22_cgs_variants, t26_test_split


@pytest.mark.parametrize("module", [t05_headline, t06_per_axis, t09_practical, t22_cgs_variants, t26_test_split])
def test_columns_are_printed_headers(module):
    assert set(module.COLUMNS) <= set(paper.header(module.PAPER))


def test_table5_columns_hand_listed():
    assert t05_headline.COLUMNS == {"R@1": "recall@1", "R@3": "recall@3", "MRR": "mrr", "BLEU": "bleu4",
                                    "ROUGE-L": "rouge_l", "CGS": "cgs", "CiteDensity": "cd", "TSR": "tsr",
                                    "T2R": "t2r"}
    assert t05_headline.AXES["grounding"] == ("CGS", "CiteDensity")
    assert t05_headline.SLUGS["CiteDensity"] == "cd" and t05_headline.SLUGS["R@1"] == "r1"


@pytest.mark.parametrize("metric, diff, expected", [
    ("recall@1", 0.1, "better"), ("recall@1", -0.1, "worse"), ("t2r", 0.5, "worse"), ("t2r", -0.5, "better"),
    ("recall@1_open", -0.2, "worse"), ("recall@1", 0.0, ""), ("n_turns", 1.0, ""), ("gs", float("nan"), ""),
])
def test_direction(metric, diff, expected):
    assert deviations.direction(metric, diff) == expected


def test_deviating_says_better_or_worse():
    df = pd.DataFrame({"table": ["t"] * 3, "Baseline": ["A", "B", "C"], "column": ["R@1", "T2R", "R@1"],
                       "metric": ["recall@1", "t2r", "recall@1"], "paper": [0.5, 2.0, 0.5],
                       "ours": [0.2, 3.0, 0.5], "diff": [-0.3, 1.0, 0.0], "ci_low": [0.1, 2.5, 0.4],
                       "ci_high": [0.3, 3.5, 0.6], "n_clusters": [40] * 3,
                       "verdict": ["deviates", "deviates", "within CI"], "cause": ["x", "y", ""],
                       deviations.OFFICIAL_COLUMN: ["not run"] * 3})
    out = deviations.deviating(df)
    assert list(out["Baseline"]) == ["B", "A"] and list(out["ours_vs_paper"]) == ["worse", "worse"]
