"""Dense and Hybrid-RRF (they load MiniLM once per session, the slow part of this file)."""
import numpy as np
import pytest
from helpers import after_rejection, first_turn
from test_geo import check_verbatim_and_rejection
from tinykb import RESTAURANTS

from trace_crs.baselines.dense import REJECT_WEIGHT, dense_document, dense_scores
from trace_crs.baselines.registry import create
from trace_crs.lm.embeddings import embed


def test_dense_scores_formula(kb):
    ctx = after_rejection(kb, "I want sushi and ramen", "r3")
    docs = embed([dense_document(kb, c) for c in RESTAURANTS])
    q = embed(["Hi I want sushi and ramen Not that one."])[0]
    q = q - REJECT_WEIGHT * embed([dense_document(kb, "r3")])[0]
    np.testing.assert_allclose(dense_scores(ctx), docs @ q, atol=1e-5)
    assert dense_document(kb, "r1").startswith("Luigi Trattoria Italian, Restaurant The pasta")


def test_dense_top_semantic(kb):
    assert create("dense").predict(first_turn(kb, "sushi and ramen please")).ranked_poi_ids[0] == "r3"


@pytest.mark.parametrize("name", ["dense", "hybrid_rrf"])
def test_quotes_are_verbatim_and_rejected_last(kb, name):
    check_verbatim_and_rejection(kb, name)


def test_warm_reuses_the_disk_cache(kb, monkeypatch):
    from trace_crs.baselines import dense
    from trace_crs.cache import memo

    ctxs = [first_turn(kb, "sushi bar"), first_turn(kb, "pasta place")]
    dense.DenseBaseline().warm(ctxs)
    first = {k: v.copy() for k, v in memo(kb, "dense_query").items()}
    memo(kb, "dense_warm").clear()
    monkeypatch.setattr(dense, "embed", lambda texts: (_ for _ in ()).throw(AssertionError("re-embedded")))
    dense.DenseBaseline().warm(ctxs)                        # must load from disk, not embed again
    again = memo(kb, "dense_query")
    assert sorted(again) == sorted(first) == ["Hi pasta place", "Hi sushi bar"]
    assert all(np.array_equal(first[k], again[k]) for k in first)
