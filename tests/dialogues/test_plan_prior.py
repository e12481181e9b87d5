"""Persona conditioning: a favoured facet value ends up in the hidden
preferences more often with the prior than without it, on the same pools and seeds."""
from __future__ import annotations

import numpy as np
from scipy.stats import fisher_exact

from trace_crs.dialogues.constraints import hidden_preferences
from trace_crs.dialogues.plan import build_plan, favoured
from trace_crs.dialogues.tiers import TIER_SPECS


def _rate(cands, prior, value: tuple[str, str], n: int = 150) -> int:
    hits = 0
    for seed in range(n):
        plan = build_plan(cands, TIER_SPECS["medium"], [], np.random.default_rng([seed]), prior=prior)
        assert plan is not None
        hits += any(favoured(c, frozenset({value})) for c in plan.constraints)
    return hits


def test_favoured_value_is_wanted_more_often(tiny_kb):
    cands = [p for p in tiny_kb.pois.values() if p.poi_type == "restaurant"]
    value = ("features", "outdoor_seating")          # 3 of the 10 tiny-KB restaurants have it
    with_prior, without = _rate(cands, frozenset({value}), value), _rate(cands, frozenset(), value)
    _, p = fisher_exact([[with_prior, 150 - with_prior], [without, 150 - without]], alternative="greater")
    assert with_prior > without and p < 0.01, (with_prior, without, p)


def test_facet_wildcard_favours_any_value():
    assert favoured(("noise", "quiet"), frozenset({("noise", "*")}))
    assert not favoured(("noise", "quiet"), frozenset({("noise", "loud")}))
