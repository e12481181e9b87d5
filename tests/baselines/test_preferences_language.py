"""The public preference reader on travellers' own language: negation scope, "not needed",
indifference, either/or, hedges and corrections (paper Appendix F "S+KB").

Every sentence below was written by hand for this test — none comes from the simulator's
template or paraphrase banks — and every expected parse was worked out by hand from the
public facet lexicon (``kb/data/facet_lexicon.yaml``) and price vocabulary.  Keywords: "patio",
"terrace" → outdoor_seating; "kids" → family_friendly; "valet" → parking; "rowdy", "noisy",
"packed" → loud; "calm" → quiet; "buzzing" → lively; "candlelit" → romantic; "hip" → trendy;
"elegant" → classy; "elevator" → wheelchair_accessible; "tacos" → mexican; "ramen", "sushi" →
japanese; "pho" → vietnamese; "bibimbap" → korean; "dim sum" → chinese.
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from trace_crs.baselines.preferences import Stated, satisfied, stated_preferences
from trace_crs.dialogues.phrasing import paraphrases, templates
from trace_crs.kb.schema import POI

F, A, S, N = "features", "ambience", "style", "noise"

CASES: list[tuple[list[str], dict[str, Any]]] = [
    # --- negation: a value the traveller does not want -------------------------------------
    (["Somewhere without wifi, we want to switch off."], {"avoid": ((F, "wifi"),)}),
    (["Nothing loud, please."], {"avoid": ((N, "loud"),)}),
    (["We'd like a place that isn't touristy."], {"avoid": ((A, "touristy"),)}),
    (["Not Italian two nights running."], {"avoid": ((S, "italian"),)}),
    (["No sushi tonight."], {"avoid": ((S, "japanese"),)}),
    (["I can't stand candlelit dinners."], {"avoid": ((A, "romantic"),)}),
    (["Please, no kids running around, it's our anniversary."], {"avoid": ((F, "family_friendly"),)}),
    (["Somewhere calm, not rowdy."], {"noise": "quiet", "avoid": ((N, "loud"),)}),
    (["We'd prefer calm rather than buzzing."], {"noise": "quiet", "avoid": ((A, "lively"),)}),
    (["Not a tourist trap, please."], {"avoid": ((A, "touristy"),)}),
    (["I'm allergic to shrimp and crab."], {"avoid": ((S, "seafood"),)}),
    (["We're tired of burgers."], {"avoid": ((S, "burgers"),)}),
    (["Somewhere that isn't too hip."], {"avoid": ((A, "trendy"),)}),
    (["Neither noisy nor crowded with tourists."], {"avoid": ((A, "touristy"), (N, "loud"))}),
    (["Honestly we hate elegant white-tablecloth places."], {"avoid": ((A, "classy"),)}),
    (["I'd rather not have a pool right under our window."], {"avoid": ((F, "pool"),)}),
    (["The last one was too rowdy for us."], {"avoid": ((N, "loud"),)}),
    (["We don't want anything hip."], {"avoid": ((A, "trendy"),)}),
    (["I'd like a calm spot, not somewhere packed."], {"noise": "quiet", "avoid": ((N, "loud"),)}),
    (["Somewhere not noisy but buzzing."], {"ambience": ("lively",), "avoid": ((N, "loud"),)}),
    (["No kids or dogs allowed, please, we want it romantic."],
     {"ambience": ("romantic",), "avoid": ((F, "family_friendly"), (F, "pet_friendly"))}),
    (["Somewhere buzzing.", "Hmm, on second thought, nothing buzzing."], {"avoid": ((A, "lively"),)}),
    (["No pool, please.", "Actually, a pool would be great for the kids."], {"features": ("family_friendly", "pool")}),
    # --- not needed: dropped, not avoided --------------------------------------------------
    (["No need for parking, we walk everywhere."], {}),
    (["The kids are not coming this time."], {}),
    (["Parking isn't needed."], {}),
    (["We don't need wifi, but a terrace would be lovely."], {"features": ("outdoor_seating",)}),
    (["I need wifi.", "Actually, we don't need wifi after all."], {}),
    (["A gym isn't necessary for me."], {}),
    (["Valet is not required."], {}),
    (["The kids are staying home with grandma, so somewhere romantic."], {"ambience": ("romantic",)}),
    (["Somewhere with parking.", "Actually no parking needed, we're taking the tram."], {}),
    # --- indifference: a facet that does not matter ----------------------------------------
    (["Price doesn't matter."], {"indifferent": ("price_max",)}),
    (["Any cuisine is fine."], {"indifferent": ("style",)}),
    (["Cheap would be good.", "Actually the price doesn't matter."], {"indifferent": ("price_max",)}),
    (["We're not fussy about the food."], {"indifferent": ("style",)}),
    (["The vibe doesn't matter as long as it's calm."], {"noise": "quiet", "indifferent": ("ambience",)}),
    (["Whatever cuisine, just somewhere with a patio."], {"features": ("outdoor_seating",), "indifferent": ("style",)}),
    (["Sushi would be great.", "Honestly, any kind of food is fine."], {"indifferent": ("style",)}),
    (["I don't care about the atmosphere."], {"indifferent": ("ambience",)}),
    (["Noise level doesn't matter to us."], {"indifferent": ("noise",)}),
    (["Any cuisine.", "Ramen, actually."], {"style": "japanese"}),
    # --- either-of groups ------------------------------------------------------------------
    (["Either Italian or Thai is fine."], {"either": (((S, "italian"), (S, "thai")),)}),
    (["Tacos or ramen, we're easy."], {"either": (((S, "mexican"), (S, "japanese")),)}),
    (["A patio or a terrace would be perfect."], {"features": ("outdoor_seating",)}),
    (["Pho, bibimbap or dim sum."], {"either": (((S, "vietnamese"), (S, "korean"), (S, "chinese")),)}),
    (["Something cozy or romantic."], {"either": (((A, "cozy"), (A, "romantic")),)}),
    (["No sushi or ramen."], {"avoid": ((S, "japanese"),)}),
    (["A gallery or a museum, and it must have an elevator."],
     {"features": ("wheelchair_accessible",), "either": (((S, "art_gallery"), (S, "museum")),)}),
    (["Italian or Thai, not Mexican."],
     {"either": (((S, "italian"), (S, "thai")),), "avoid": ((S, "mexican"),)}),
    # --- hedges: still wanted, marked soft -------------------------------------------------
    (["Maybe somewhere quiet-ish."], {"noise": "quiet", "soft": ((N, "quiet"),)}),
    (["Ideally a place with a terrace."], {"features": ("outdoor_seating",), "soft": ((F, "outdoor_seating"),)}),
    (["A pool would be nice if possible."], {"features": ("pool",), "soft": ((F, "pool"),)}),
    (["Something sort of casual."], {"ambience": ("casual",), "soft": ((A, "casual"),)}),
    (["Perhaps Korean? Or not, I'm not sure."], {"style": "korean", "soft": ((S, "korean"),)}),
    (["Cozy-ish, and definitely calm."], {"ambience": ("cozy",), "noise": "quiet", "soft": ((A, "cozy"),)}),
    # --- corrections: the profile after the correction -------------------------------------
    (["Somewhere buzzing.", "Actually, make that cozy."], {"ambience": ("cozy",)}),
    (["A patio and wifi please.", "Scratch the patio."], {"features": ("wifi",)}),
    (["Somewhere romantic with a terrace. Hmm, actually, scratch that idea."], {}),
    (["Somewhere calm.", "Sorry, I meant buzzing and loud."], {"noise": "loud", "ambience": ("lively",)}),
    (["We'd love a pool.", "Forget the pool, we won't have time."], {}),
    (["Cheap, please.", "Actually, mid-range is fine."], {"price_max": 3}),
    (["Italian, please.", "Never mind the Italian, make it Thai."], {"style": "thai"}),
    (["Vegan options are a must. Actually, skip that, my sister isn't coming."], {}),
    # --- what the public lexicon cannot see, and pseudo-negations --------------------------
    (["Without a TV blaring, ideally."], {}),          # "TV blaring" names no lexicon value
    (["Not a chain, please."], {}),                    # "chain" names no lexicon value
    (["We don't mind touristy places."], {"ambience": ("touristy",)}),
    (["Not too loud, please."], {"noise": "average"}),  # the lexicon phrase itself
    (["Not only quiet but also cozy."], {"noise": "quiet", "ambience": ("cozy",)}),
    (["No rush, a quiet cafe whenever you can."], {"style": "cafe", "noise": "quiet"}),
    (["Can't complain about the old one, so something cozy again."], {"ambience": ("cozy",)}),
    (["no hurry finding us a quiet italian place"], {"style": "italian", "noise": "quiet"}),  # no clause break
    (["no wonder the cozy cafes fill up, find us one"], {"style": "cafe", "ambience": ("cozy",)}),
    # --- cues as typed on a phone: no apostrophe, a verb's -s, "except", plural "are a no" --
    (["We dont want anything touristy."], {"avoid": ((A, "touristy"),)}),
    (["The view isnt important, just somewhere calm."], {"noise": "quiet"}),
    (["My son hates sushi."], {"avoid": ((S, "japanese"),)}),
    (["Dad dislikes spicy thai food."], {"avoid": ((S, "thai"),)}),
    (["Any cuisine except Korean works for us."], {"indifferent": (S,), "avoid": ((S, "korean"),)}),
    (["Everything's fine apart from seafood."], {"avoid": ((S, "seafood"),)}),
    (["We're not into fancy classy places."], {"avoid": ((A, "classy"),)}),
    (["with a toddler pools are a no"], {"avoid": ((F, "pool"),)}),
    (["Rowdy bars aren't our thing."], {"avoid": ((N, "loud"), (S, "nightlife"))}),
    # --- "skip": withdraws a wish said before, avoids a value never wished for -------------
    (["Skip the steakhouses, please."], {"avoid": ((S, "steakhouse"),)}),
    (["A patio would be lovely.", "Actually, skip the patio."], {}),
    (["Italian sounds good.", "Forget Italian, lets do Thai."], {"style": "thai"}),
    (["Anywhere but a steakhouse."], {"avoid": ((S, "steakhouse"),)}),
    (["Too rowdy last time, somewhere quieter tonight."], {"noise": "quiet", "avoid": ((N, "loud"),)}),
    (["We don't care which cuisine, just quick."], {"indifferent": (S,)}),
    (["The vibe doesnt really matter to us."], {"indifferent": (A,)}),
    (["Noise isn't a concern."], {"indifferent": (N,)}),
    # --- either-of groups: one governing cue; a comma list of one facet ----------------------
    (["No seafood, thai or korean would be great."], {"avoid": ((S, "seafood"),), "either": (((S, "thai"), (S, "korean")),)}),
    (["Somewhere romantic, tacos or pizza."], {"ambience": ("romantic",), "either": (((S, "mexican"), (S, "pizza")),)}),
    (["Thai, korean or vietnamese, all good."], {"either": (((S, "thai"), (S, "korean"), (S, "vietnamese")),)}),
    # --- reader-only phrasings: "sit outside", "tourist traps"; "isn't a big deal" ------------
    (["Can we sit outside?"], {"features": ("outdoor_seating",)}),
    (["Away from the tourist traps please."], {"avoid": ((A, "touristy"),)}),
    (["The vibe isn't a big deal to us."], {"indifferent": (A,)}),
]


@pytest.mark.parametrize("texts,expected", CASES, ids=[" | ".join(t)[:60] for t, _ in CASES])
def test_reader_parses_travellers_language(texts, expected):
    want = Stated(**{k: v for k, v in expected.items()})
    assert stated_preferences(texts) == want


def _bank_patterns() -> list[re.Pattern[str]]:
    """Every sentence and frame of the simulator's banks as a full-match pattern ({slot} → .+)."""
    def strings(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [s for v in node.values() for s in strings(v)]
        return [s for v in node for s in strings(v)] if isinstance(node, list) else []
    out = []
    for text in strings(paraphrases()) + strings(templates()):
        if not re.sub(r"\{\w+\}|\W", "", text):   # a bare slot ("{pref}") frames anything
            continue
        body = re.escape(text.strip().rstrip(".!?"))
        out.append(re.compile(re.sub(r"\\\{\w+\\\}", ".+", body), re.IGNORECASE))
    return out


def test_sixty_hand_written_sentences_no_bank_produced():
    assert len(CASES) >= 60 and len({tuple(t) for t, _ in CASES}) == len(CASES)
    patterns = _bank_patterns()
    produced = [s for texts, _ in CASES for t in texts for s in re.split(r"(?<=[.!?])\s+", t)
                if any(p.fullmatch(s.rstrip(".!?")) for p in patterns)]
    assert produced == []


def test_without_wifi_is_no_request_for_wifi():
    """The reported bug: "without wifi" once read as a request *for* wifi."""
    got = stated_preferences(["A room without wifi would be a treat."])
    assert "wifi" not in got.features and (F, "wifi") in got.avoid


def _poi(features: list[str], ambience: list[str], style: str | None = None) -> POI:
    return POI(business_id="p", name="P", address="1 Main St", city="Tampa", state="FL", latitude=0.0, longitude=0.0, stars=4.0,
               review_count=1, categories=[], price=2, poi_type="restaurant",
               attributes={"style": style, "noise": None, "ambience": ambience, "features": features})


@pytest.mark.parametrize("features,ambience,style,expected", [
    # stated: wants a patio (1), cozy or romantic (group), avoids touristy (−1 if present)
    (["outdoor_seating"], ["cozy"], None, 2),
    (["outdoor_seating"], ["cozy", "touristy"], None, 1),
    ([], ["touristy"], None, -1),
    ([], [], None, 0),
    (["outdoor_seating"], ["romantic", "cozy"], None, 2),   # a group counts once
])
def test_satisfied_counts_wanted_and_groups_and_penalises_avoided(features, ambience, style, expected):
    stated = stated_preferences(["A patio, and something cozy or romantic.", "Nothing touristy."])
    assert stated.features == ("outdoor_seating",) and stated.avoid == ((A, "touristy"),)
    assert satisfied(_poi(features, ambience, style), stated) == expected


def test_a_cue_holding_a_terminator_still_scopes_forward():
    """"anything but" holds "but", which otherwise ends a scope."""
    assert stated_preferences(["Honestly, anything but Italian."]).avoid == ((S, "italian"),)
