"""Ranker abstention: confidence = the ranker's best candidate score; swept over tau."""
from __future__ import annotations

import numpy as np
import pytest

from trace_crs.baselines.abstain import best_score, confidence_table, first_request
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.dialogues.unsolvable import build_unsolvable
from trace_crs.kb.store import KB
from trace_crs.kb.synthetic import build_synthetic
from trace_crs.metrics.abstention import tau_sweep


@pytest.fixture(scope="module")
def world():
    pois, reviews, _ = build_synthetic(per_cell=12, seed=42)
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    dialogues = generate_simulated(kb, 24, seed=42)
    return kb, dialogues, build_unsolvable(kb, dialogues, 8, seed=42)


def test_best_score_is_the_max_of_the_rankers_scores(world):
    kb, dialogues, _ = world
    ctx = first_request(dialogues[0], kb)
    assert best_score("tfidf", ctx) == pytest.approx(float(np.max(tfidf_scores(ctx))))


def test_confidence_table_and_sweep(world):
    kb, dialogues, items = world
    table = confidence_table(kb, items, dialogues[:8], names=("tfidf",))
    assert len(table) == 16 and table["unsolvable"].sum() == 8
    sweep = tau_sweep(table["best_score"], table["unsolvable"], [-1.0, 2.0])
    # tau below every finite score: only the uncovered-city items (nothing to rank: -inf) abstain;
    # tau above every score: everyone does
    uncovered = sum(i["unsolvable"]["reason"] == "uncovered" and not i["unsolvable"].get("asked_type") for i in items)
    assert (sweep.loc[0, "tp"], sweep.loc[0, "fp"]) == (uncovered, 0)
    assert sweep.loc[1, "recall"] == 1.0 and sweep.loc[1, "false_abstention_rate"] == 1.0
