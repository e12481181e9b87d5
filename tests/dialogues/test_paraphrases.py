"""The simulator's own paraphrase bank: complete, free of the baselines' keywords, and used."""
from __future__ import annotations

import numpy as np
import pytest

from trace_crs.dialogues.phrasing import paraphrases, pref_text, templates
from trace_crs.kb.facets import AMBIENCES, FEATURES, NOISE_LEVELS, STYLES
from trace_crs.kb.lexicon import facet_lexicon, find_facets
from trace_crs.kb.price import price_ceiling

FACETS = ("style", "noise", "ambience", "features")


def keyword_hits(text: str) -> set[tuple[str, str]]:
    return {(f, v) for f in [*FACETS, "price"] for v, _, _ in find_facets(text, f)}


def test_bank_covers_every_facet_value():
    bank = paraphrases()
    assert set(bank["style"]) == {s for styles in STYLES.values() for s in styles}
    assert set(bank["noise"]) == set(NOISE_LEVELS)
    assert set(bank["ambience"]) == set(AMBIENCES) and set(bank["features"]) == set(FEATURES)
    assert all(len(v) >= 3 for f in FACETS for v in bank[f].values())


@pytest.mark.parametrize("facet", FACETS)
def test_paraphrases_carry_no_lexicon_keyword(facet):
    offenders = [(v, p, keyword_hits(p)) for v, ps in paraphrases()[facet].items() for p in ps if keyword_hits(p)]
    assert offenders == []


def test_anchor_paraphrases_name_the_place_without_a_radius():
    for frame in paraphrases()["anchor"]:
        text = frame.format(anchor="Ybor City")
        assert "Ybor City" in text and "km" not in text and not keyword_hits(text)


@pytest.mark.parametrize("ceiling", [2, 3])
def test_every_price_phrasing_round_trips_through_the_public_vocabulary(ceiling):
    for word in templates()["price_words"][ceiling]:
        for frame in templates()["pref"]["price"]:
            assert price_ceiling([frame.format(kw=word)]) == ceiling, (frame, word)


def test_direct_share_matches_p_direct():
    rng = np.random.default_rng(0)
    n = 4000
    direct = sum(bool(find_facets(pref_text(("features", "wifi"), "hotel", rng), "features")) for _ in range(n))
    p = paraphrases()["p_direct"]
    assert abs(direct / n - p) < 4 * np.sqrt(p * (1 - p) / n)
