"""Reader-only budgets (baselines.reader_price): amounts in words and slang, negated "more
than", a few tight-budget phrases — hand-worked levels on the public dollar bands (restaurant
per person ≤ 10 / 30 / 60, hotel per night ≤ 100 / 200 / 350: kb/data/price_words.yaml)."""
from __future__ import annotations

import pytest

from trace_crs.baselines.reader_price import ceiling, mentions
from trace_crs.kb.price import price_ceiling, price_words


@pytest.mark.parametrize(
    ("text", "poi_type", "level"),
    [
        ("under fifty dollars a person", None, 3),             # words → 50 → band ≤ 60
        ("can't spend more than 50 bucks each", None, 3),      # negated "more than", slang money word
        ("nothing over $25 a head", None, 2),
        ("twenty five bucks tops", None, 2),                   # no qualifier: money word + "tops"
        ("max 120 a night", "hotel", 2),                       # bare number: qualifier + per-unit
        ("up to 400 a night", "hotel", 4),
        ("money's tight this month", None, 2),
        ("under $20 please", None, 2),                         # the public vocabulary's reading kept
        ("cheap, actually make it under 70 dollars each", None, 4),  # the last mention wins
        ("something under fifty", None, 3),                    # a bare number after a ceiling word
        ("not more than 40 please", None, 3),
        ("nothing over 25", None, 2),                          # a negated "over" is a ceiling word
        ("we walked for under 30 minutes", None, None),        # another unit: no budget
        ("up to 4 people, around 7", None, None),              # people; "around" a time
        ("max 2 kids and a dog", None, None),
        ("under 5 min walk", None, None),
        ("dinner around 20", None, None),                      # "around" alone: no ceiling word
        ("we paid 40 bucks a head last time", None, None),     # narration
        ("a table for 8 around 7", None, None),
        ("we spent 200 dollars", None, None),                  # money word, no qualifier / per-unit / max
        ("", None, None),
        # idioms (reader_price.IDIOMS): a tight budget, a budget that is no object, "not super expensive"
        ("we're broke this week", None, 2),
        ("i am so broke lol", None, 2),
        ("the car broke down, need food nearby", None, None),  # the verb, not the state
        ("on a student budget", None, 2),
        ("as cheap as possible", None, 2),
        ("cheaper is better for us", None, 2),
        ("money is not an issue tonight", None, 4),
        ("cost no object", None, 4),
        ("the sky is the limit", None, 4),
        ("nothing crazy expensive", None, 3),
        ("somewhere not that pricey", None, 3),
        ("dont want to pay more than 120 a night", "hotel", 2),  # a negated "more than", apostrophe left out
        ("doesnt go over 25 bucks pp", None, 2),
        # currencies on the dollar bands (nominal), ranges by their upper end, "a hundred and …"
        ("£40 a head max", None, 3),
        ("12 quid each", None, 2),
        ("around 120-180 a night", "hotel", 2),
        ("under a hundred and twenty a night", "hotel", 2),
        ("7-9 pm", None, None),                       # a time range, no money
        ("2-3 nights", "hotel", None),
    ],
)
def test_ceiling(text, poi_type, level):
    assert ceiling([text], poi_type) == level


def test_public_reading_is_unchanged_where_it_reads():
    # Every phrase of the shared vocabulary reads as before (the generator and the metric use it).
    for phrase, level in price_words().items():
        assert ceiling([f"something {phrase}"]) == price_ceiling([f"something {phrase}"]), phrase


def test_mentions_do_not_double_count_a_public_amount():
    assert [m.phrase for m in mentions("under $20 a person")] == ["under $20"]
