"""Intervals for the derived tables (17, 19, 22, 23, 27): every LLM row carries n and a 95 %
dialogue-cluster bootstrap interval per column, "insufficient n" below MIN_CLUSTERS dialogues.

Fixture: run ``closed`` scores TF-IDF (non-LLM, never shown), run ``closed_llm`` scores LLM
Zero-Shot on 80 dialogues (20 per difficulty tier, 60 with an alternative, so every column has
≥ 20 clusters) and DST on 3 hand-made dialogues whose cells are worked by hand.  The point
estimate of every LLM cell must equal the table's own ``load`` (independent computation:
aggregates or pandas group-bys).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from trace_crs.report import (compare, t17_entailment_vs_fuzzy, t19_antigaming, t22_cgs_variants, t23_difficulty,
                              t27_multi_reference)
from trace_crs.stats.intervals import MIN_CLUSTERS

MODULES = (t17_entailment_vs_fuzzy, t19_antigaming, t22_cgs_variants, t23_difficulty, t27_multi_reference)
TIERS = ("easy", "medium", "hard", "expert")
METRICS = ("recall@1", "mr_recall@1", "gs", "entailment", "cd", "pc", "cgs", "cgs_ent")
# "0.250 [0.18, 0.31]", with " (n = k)" when the cell rests on another n than its row's (column "n")
CELL = re.compile(r"^(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\](?: \(n = (\d+)\))?$")
# DST, one turn per dialogue: the hand-worked cells below.
DST = pd.DataFrame({"dialogue_id": ["a", "b", "c"], "turn_id": 2, "difficulty": ["easy", "easy", "hard"],
                    "has_alternative": [True, True, False], "recall@1": [1.0, 0.0, 0.0],
                    "mr_recall@1": [1.0, 1.0, 0.0], "gs": [1.0, 0.5, 0.0], "entailment": [0.5, 0.5, 0.0],
                    "cd": [0.2, 0.4, 0.6], "pc": [1.0, 1.0, 1.0], "cgs": [0.3, 0.3, 0.6],
                    "cgs_ent": [0.0, 0.3, 0.3]})


def _turns(n_dialogues: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_dialogues):
        for t in range(int(rng.integers(1, 4))):
            r1, alt, gs = float(rng.integers(0, 2)), i < 60, float(rng.random())   # alternatives in d000–d059
            rows.append({"dialogue_id": f"d{i:03d}", "turn_id": 2 * t + 2, "difficulty": TIERS[i % 4],
                         "has_alternative": alt, "recall@1": r1, "mr_recall@1": max(r1, float(alt and rng.random() < .5)),
                         "gs": gs, "entailment": gs * float(rng.random()), "cd": float(rng.random()), "pc": float(rng.random()),
                         "cgs": float(rng.random()), "cgs_ent": float(rng.random())})
    return pd.DataFrame(rows)


@pytest.fixture
def results_dir(tmp_path, scores):
    for run, base, turns in (("closed", "tfidf", _turns(4, 1)), ("closed_llm", "llm_zero_shot", _turns(80, 2)),
                             ("closed_llm", "dst", DST)):
        means = {m: float(turns[m].mean()) for m in METRICS}   # the aggregates are means over turns
        scores(tmp_path, run, base, means, per_turn=turns.to_dict("records"),
               n_dialogues=turns["dialogue_id"].nunique(), n_turns=len(turns))
    return tmp_path


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_llm_rows_columns_and_estimates_match_the_table(results_dir, module):
    out = module.intervals(results_dir, ["closed", "closed_llm"], n_boot=200)
    assert list(out.index) == ["LLM Zero-Shot", "DST"]          # registry order; TF-IDF not shown
    assert list(out.columns) == ["n", *module.CI_COLUMNS]
    long = module.load(results_dir, runs=["closed", "closed_llm"])
    for column in module.CI_COLUMNS:
        cell = out.at["LLM Zero-Shot", column]
        match = CELL.match(cell)
        assert match, cell
        est, low, high = float(match[1]), float(match[2]), float(match[3])
        n = int(match[4] or out.at["LLM Zero-Shot", "n"])
        ours = long[(long["baseline"] == "llm_zero_shot") & (long["column"] == column)]["ours"].iloc[0]
        assert est == pytest.approx(ours, abs=5e-4) and low - 5e-3 <= est <= high + 5e-3   # bounds at 2 decimals
        alt_only = column in ("MR_R@1_alt_only", "Delta_alt_only_pp")
        assert n == (20 if module is t23_difficulty else 60 if alt_only else 80) >= MIN_CLUSTERS


EXPECTED_DST = {
    # GS (1 + .5 + 0)/3, entailment (.5 + .5 + 0)/3, Gap their difference
    t17_entailment_vs_fuzzy: {"FuzzyGS": "0.500", "EntailmentGS": "0.333", "Gap": "0.167"},
    # CD .4, GS .5; CD rises by .2 while GS falls by .5 per turn: r = -1
    t19_antigaming: {"MeanCD": "0.400", "MeanGS": "0.500", "Pearson_r": "-1.000"},
    t22_cgs_variants: {"GS": "0.500", "Entail": "0.333", "CD": "0.400", "PC": "1.000", "CGS": "0.400",
                       "CGSent": "0.200"},
    # easy: a, b -> (1 + 0)/2 on 2 dialogues; hard: c -> 0 on 1; no medium or expert dialogue
    t23_difficulty: {"Easy_R@1": ("0.500", 2), "Hard_R@1": ("0.000", 1)},
    # all: R@1 1/3, MR 2/3; alternatives on a, b: MR (1 + 1)/2, Δ 100 × ((1-1) + (1-0))/2
    t27_multi_reference: {"SingleRef_R@1": "0.333", "MR_R@1_all": "0.667", "MR_R@1_alt_only": ("1.000", 2),
                          "Delta_alt_only_pp": ("50.000", 2)},
}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_three_dialogues_say_insufficient_n(results_dir, module):
    out = module.intervals(results_dir, ["closed", "closed_llm"], n_boot=100)
    for column, want in EXPECTED_DST[module].items():
        value, n = want if isinstance(want, tuple) else (want, 3)
        cell = out.at["DST", column]   # n shown in the cell only when it is not the row's
        assert cell == (f"{value} (insufficient n)" if str(n) == out.at["DST", "n"] else f"{value} (insufficient n, n = {n})")
    if module is t23_difficulty:
        assert out.loc["DST", ["Medium_R@1", "Expert_R@1"]].isna().all()   # no such turns: no cell


def test_no_llm_baseline_gives_an_empty_frame(results_dir):
    assert t27_multi_reference.intervals(results_dir, ["closed"], n_boot=20).empty


def test_ci_table_formats_like_compare_intervals():
    part = pd.DataFrame({"Baseline": ["A", "A", "B"], "column": ["x", "y", "x"], "ours": [0.5, 0.25, 1 / 3],
                         "ci_low": [0.4, np.nan, 0.2], "ci_high": [0.6, np.nan, 0.4], "n_clusters": [25, np.nan, 3],
                         "sufficient": [True, np.nan, False]})
    out = compare.ci_table(part)
    assert out.to_dict("index") == {"A": {"n": "25", "x": "0.500 [0.40, 0.60]", "y": "0.250 (no interval)"},
                                    "B": {"n": "3", "x": "0.333 (insufficient n)", "y": np.nan}}
