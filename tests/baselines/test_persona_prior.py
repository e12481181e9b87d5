"""Persona-Grounded's learned preference prior (baselines/persona.py): hand-worked
weights, leave-one-dialogue-out, order independence and its effect on the ranking."""
from __future__ import annotations

import math
import random

import pytest
from tinykb import RESTAURANTS, dialogue

from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.persona import ALPHA, PersonaBaseline, PersonaPrior, prior_boost
from trace_crs.runner.tasks import turn_contexts

QUIET = ("noise", "quiet")


def _corpus(kb) -> list[TurnContext]:
    """Two family users ask for a quiet place, one business user states nothing decodable."""
    ds = [dialogue("crs_test_00011", ["Hi", "Somewhere quiet please.", "No."], ["r2", "r1"], persona_type="family"),
          dialogue("crs_test_00012", ["Hi", "A calm place for us.", "No."], ["r2", "r3"], persona_type="family"),
          dialogue("crs_test_00013", ["Hi", "Anything is fine.", "No."], ["r2", "r4"], persona_type="business")]
    return [ctx for d in ds for ctx in turn_contexts(d, kb, "closed", 42)]


def test_weights_hand_worked(kb) -> None:
    prior = PersonaPrior.fit(_corpus(kb))
    # an unseen family dialogue: k_t = 2 of n_t = 2 family users; base rate 2 of 3 restaurant users
    p, p_t = 2 / 3, (2 + ALPHA * 2 / 3) / (2 + ALPHA)
    assert prior.weights("crs_test_09999", "family", "restaurant") == {QUIET: pytest.approx(math.log2(p_t / p))}
    # a business user is below the base rate for quiet: no positive weight
    assert prior.weights("crs_test_09999", "business", "restaurant") == {}


def test_leave_one_dialogue_out(kb) -> None:
    contexts = _corpus(kb)
    full = PersonaPrior.fit(contexts)
    without = PersonaPrior.fit([c for c in contexts if c.dialogue_id != "crs_test_00011"])
    # the dialogue's own statements never inform its own prior: same weights as a corpus without it
    assert full.weights("crs_test_00011", "family", "restaurant") == \
        without.weights("crs_test_00011", "family", "restaurant")
    p, p_t = 1 / 2, (1 + ALPHA * 1 / 2) / (1 + ALPHA)
    assert full.weights("crs_test_00011", "family", "restaurant")[QUIET] == pytest.approx(math.log2(p_t / p))


def test_order_independent(kb) -> None:
    contexts = _corpus(kb)
    shuffled = contexts[:]
    random.Random(3).shuffle(shuffled)
    a, b = PersonaPrior.fit(contexts), PersonaPrior.fit(shuffled)
    for did in ("crs_test_00011", "crs_test_00012", "crs_test_00013", "x"):
        assert a.weights(did, "family", "restaurant") == b.weights(did, "family", "restaurant")


def test_boost_counts_unstated_constraints_met(kb) -> None:
    d = dialogue("crs_test_00014", ["Hi", "Pasta tonight.", "No."], ["r2", "r1"], persona_type="family")
    ctx = turn_contexts(d, kb, "closed", 42)[0]
    boost = prior_boost(ctx, {QUIET: 1.0})
    quiet = {p for p in RESTAURANTS if kb.pois[p].attributes.get("noise") == "quiet"}
    assert {p for p, b in zip(ctx.candidates, boost) if b == 1.0} == quiet
    assert {p for p, b in zip(ctx.candidates, boost) if b == 0.0} == set(RESTAURANTS) - quiet
    # once the user has said it, the prior adds nothing for it
    said = turn_contexts(dialogue("crs_test_00015", ["Hi", "Quiet pasta place.", "No."], ["r2", "r1"],
                                  persona_type="family"), kb, "closed", 42)[0]
    assert not prior_boost(said, {QUIET: 1.0}).any()


def test_prior_moves_quiet_places_up_for_family_users(kb) -> None:
    corpus = _corpus(kb)
    d = dialogue("crs_test_00016", ["Hi", "Pasta tonight.", "No."], ["r2", "r1"], persona_type="family")
    ctx = turn_contexts(d, kb, "closed", 42)[0]
    plain, learned = PersonaBaseline(), PersonaBaseline()
    learned.see_corpus(corpus)
    before, after = plain.predict(ctx).ranked_poi_ids, learned.predict(ctx).ranked_poi_ids
    quiet = {p for p in RESTAURANTS if kb.pois[p].attributes.get("noise") == "quiet"}
    rank = lambda ranked: sum(ranked.index(p) for p in quiet)  # noqa: E731
    assert rank(after) < rank(before)
