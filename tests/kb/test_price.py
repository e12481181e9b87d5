"""The one public price vocabulary: hand-checked phrases, the generator's price phrasings
round-trip to their ceiling, and the false positives the paper's map invites are skipped."""
from __future__ import annotations

import numpy as np
import pytest

from trace_crs.dialogues.personas import persona_data
from trace_crs.dialogues.phrasing import pref_text, templates
from trace_crs.kb.price import price_ceiling, price_mentions, price_words


@pytest.mark.parametrize("texts,ceiling", [
    (["Keep it cheap, please."], 2), (["Something mid-range."], 3), (["not too expensive"], 3),
    (["We can splurge tonight."], 4), (["moderately priced would be good"], 3),
    (["Somewhere inexpensive."], 2), (["Reasonably priced, ideally."], 3), (["Anything affordable."], 2),
    (["Something moderate is what I can do."], 3), (["Something budget is what I can do."], 2),
    (["My budget says mid-range."], 3), (["My budget says budget."], 2), (["I'm on a tight budget."], 2),
    (["cheap", "actually, money is no object"], 4), (["upscale", "hmm, affordable after all"], 2),
    (["a budget hotel near the airport"], None), (["I'd like a budget kind of hotel."], None),
    (["cheaper than that"], None), (["no price talk"], None), ([], None)])
def test_price_ceiling(texts, ceiling):
    assert price_ceiling(texts) == ceiling


@pytest.mark.parametrize("text,ceiling", [
    ("$$ please", 2), ("$ is fine", 1), ("$$$$, it's our anniversary", 4), ("$$ or $$$", 3),
    ("under $$$", 2), ("Under $20 a head.", 2), ("less than $10 each", 1), ("no more than $45", 3),
    ("at most $100 per person", 4), ("We spent $200 last time.", None)])
def test_symbols_and_amounts(text, ceiling):  # restaurant bands ≤ $10 / $30 / $60 (Yelp)
    assert price_ceiling([text]) == ceiling


def test_amount_bands_follow_the_poi_type():
    assert [price_ceiling(["no more than $150 a night"], t) for t in ("restaurant", "hotel")] == [4, 2]


@pytest.mark.parametrize("text", [
    "It doesn't need to be cheap.", "Nothing upscale, please.", "I don't want anything too cheap.",
    "Not cheap, not fancy.", "Somewhere moderate noise would be best.", "A reasonable walk from the hotel.",
    "Hi! I'm a traveller on a tight budget, in Tampa for a first visit.",
    "Hello, half of a couple who like to splurge here, visiting Reno.",
    "Hi! I'm a traveller used to high-end service, in Reno."])
def test_false_positives_name_no_ceiling(text):
    assert price_ceiling([text]) is None


def test_a_person_asking_still_counts():
    assert price_ceiling(["I'm a student looking for something cheap."]) == 2


def test_class_words_yield_to_a_stated_budget():
    assert price_ceiling(["Keep it cheap.", "The atmosphere should be upscale."]) == 2
    assert price_ceiling(["I'm after a luxurious stay."]) == 4  # nothing else said: the paper's map
    assert price_ceiling(["Keep it cheap.", "Actually, let's splurge."]) == 4  # an explicit wish overrides


def test_longest_phrase_first_and_offsets():
    text = "Something not too  pricey"
    (m,) = price_mentions(text)
    assert text[m.start:m.end] == m.phrase == "not too  pricey" and m.level == 3


def test_paper_map():  # paper §3: budget/cheap/affordable $-$$; moderate $-$$$; luxury/upscale $-$$$$
    words = price_words()
    assert [words[w] for w in ("budget", "cheap", "affordable", "moderate", "luxury", "upscale")] == [2, 2, 2, 3, 4, 4]


# --- round trip: every price phrasing of today's generator (templates.yaml, phrasing.py) ---

def test_every_template_price_phrasing_round_trips():
    frames, words = templates()["pref"]["price"], templates()["price_words"]
    checked = 0
    for level, options in words.items():
        for word in options:
            for frame in frames:
                sentence = frame.format(kw=word)
                assert price_ceiling([sentence]) == int(level), sentence
                checked += 1
    assert checked == len(frames) * sum(map(len, words.values()))


@pytest.mark.parametrize("poi_type", ["restaurant", "hotel", "attraction"])
def test_pref_text_price_round_trips_inside_user_turns(poi_type):
    rng = np.random.default_rng(42)
    user = templates()["user"]
    for _ in range(200):
        level = int(rng.choice([2, 3]))
        pref = pref_text(("price_max", level), poi_type, rng)
        for action in ("greet_and_seek", "provide_preference", "ask_compare", "reject_and_refine"):
            for frame in user[action]:
                turn = frame.format(pref=pref, about="a traveller on a tight budget", city="Tampa",
                                    context="first visit", noun="place", name="The Budget Inn")
                assert price_ceiling([turn], poi_type) == level, turn


def test_persona_descriptions_state_no_budget():
    data = persona_data()
    for frame in templates()["user"]["greet_and_seek"]:
        for spec in data["archetypes"].values():
            for about in [spec["about"]] + [f"{spec['about']} {m}" for m in data["modifiers"]]:
                turn = frame.format(about=about, city="Tampa", context=spec["contexts"][0], noun="place", pref="")
                assert price_ceiling([turn]) is None, turn
