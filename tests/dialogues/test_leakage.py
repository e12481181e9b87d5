"""Leakage audits: the keyword decoder and persona information, on hand-worked cases."""
from __future__ import annotations

import pytest

from trace_crs.dialogues.leakage import decode, persona_information, preference_items
from trace_crs.dialogues.personas import preference_prior
from trace_crs.dialogues.plan import favoured


def test_decoder_reads_keywords_price_and_a_named_place():
    texts = ["Hi! I'm in the mood for sushi. Somewhere quiet.", "Keep it cheap, please, with wifi.",
             "Near Ybor City, within about 4 km."]
    got = dict((f, v) for f, v in decode(texts, "Tampa") if f != "anchor")
    assert got == {"style": "japanese", "noise": "quiet", "features": "wifi", "price_max": 2}
    anchor = [v for f, v in decode(texts, "Tampa") if f == "anchor"][0]
    assert (anchor["name"], anchor["max_km"]) == ("Ybor City", 4.0)


def test_decoder_misses_a_paraphrase():
    assert decode(["Somewhere I can bring the dog."], "Tampa") == []


def test_preference_items():
    hidden = {"style": "thai", "price_max": 2, "noise": None, "ambience": ["cozy"], "features": ["wifi", "gym"],
              "anchor": {"name": "Downtown", "latitude": 0, "longitude": 0, "max_km": 2}}
    assert preference_items(hidden) == {("style", "thai"), ("price_max", "2"), ("ambience", "cozy"),
                                        ("features", "wifi"), ("features", "gym"), ("anchor", "Downtown")}


def _dialogue(persona: str, wifi: bool) -> dict:
    hidden = {"style": None, "price_max": None, "noise": None, "ambience": [], "features": ["wifi"] if wifi else [],
              "anchor": None}
    return {"scenario": {"persona_type": persona, "poi_type": "hotel", "hidden_preferences": hidden}}


def test_persona_information_one_bit_when_persona_decides_the_facet():
    # two equally common personas, one always wants wifi, the other never: I = H(wifi) = 1 bit
    ds = [_dialogue("business", True) for _ in range(200)] + [_dialogue("family", False) for _ in range(200)]
    info = persona_information(ds)["features"]
    assert info["mi_bits"] == pytest.approx(1.0)
    assert info["control_bits"] < 0.05 and info["excess_bits"] > 0.95


def test_persona_information_zero_when_independent():
    ds = [_dialogue(p, w) for p in ("business", "family") for w in (True, False) for _ in range(50)]
    assert persona_information(ds)["features"]["mi_bits"] == pytest.approx(0.0, abs=1e-12)


def test_prior_is_read_and_matched():
    prior = preference_prior("business")
    assert ("features", "wifi") in prior and favoured(("features", "wifi"), prior)
    assert favoured(("anchor", {"name": "Downtown"}), prior)  # anchor:* = any landmark
    assert not favoured(("features", "pool"), prior) and preference_prior("no_such_type") == frozenset()


def test_price_ceiling_recall_counts_dialogues_with_a_stated_price():
    from trace_crs.dialogues.leakage import decoder_audit

    def d(price, text):
        hidden = {"style": None, "price_max": price, "noise": None, "ambience": [], "features": [], "anchor": None}
        return {"scenario": {"city": "Tampa", "hidden_preferences": hidden}, "candidate_poi_ids": [],
                "turns": [{"role": "user", "text": text}]}
    out = decoder_audit([d(2, "Keep it cheap."), d(3, "Something cheap."), d(None, "cheap")], kb=None)
    assert (out["price_dialogues"], out["price_ceiling_recall"]) == (2, 0.5)
