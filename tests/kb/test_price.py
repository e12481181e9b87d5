"""The one public price vocabulary: hand-checked phrases, the last one wins, hotel 'budget' skipped."""
from __future__ import annotations

import pytest

from trace_crs.kb.price import price_ceiling, price_mentions, price_words


@pytest.mark.parametrize("texts,ceiling", [
    (["Keep it cheap, please."], 2), (["Something mid-range."], 3), (["not too expensive"], 3),
    (["We can splurge tonight."], 4), (["moderately priced would be good"], 3),
    (["cheap", "actually, money is no object"], 4), (["upscale", "hmm, affordable after all"], 2),
    (["a budget hotel near the airport"], None), (["I'd like a budget kind of hotel."], None),
    (["cheaper than that"], None), (["no price talk"], None), ([], None)])
def test_price_ceiling(texts, ceiling):
    assert price_ceiling(texts) == ceiling


def test_longest_phrase_first_and_offsets():
    text = "Something not too  pricey"
    (phrase, start, end), = price_mentions(text)
    assert text[start:end] == phrase == "not too  pricey"


def test_paper_map():  # paper §3: budget/cheap/affordable $-$$; moderate $-$$$; luxury/upscale $-$$$$
    words = price_words()
    assert [words[w] for w in ("budget", "cheap", "affordable", "moderate", "luxury", "upscale")] == [2, 2, 2, 3, 4, 4]
