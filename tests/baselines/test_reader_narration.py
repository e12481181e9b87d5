"""Narration (baselines.reader_narration): a facet keyword in a clause telling what already
happened is not a wish; avoided values and present wishes are still read.  Hand-read cases."""
from __future__ import annotations

import pytest

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.reader_narration import narrated


@pytest.mark.parametrize(
    ("text", "word", "told"),
    [
        ("we had pizza yesterday", "pizza", True),                       # past deed + past time
        ("last time we went somewhere loud", "loud", True),              # past time
        ("my sister said the thai place was great", "thai", True),       # reported speech
        ("the rooftop bar was packed", "bar", True),                     # a past state
        ("I was hoping for thai", "thai", False),                        # a polite wish, not narration
        ("we were thinking italian", "italian", False),
        ("we had pizza yesterday, so something thai", "thai", False),    # the next clause asks
        ("somewhere quiet please", "quiet", False),
    ],
)
def test_narrated(text, word, told):
    assert narrated(text, text.index(word)) is told


@pytest.mark.parametrize(
    ("turn", "style", "avoid"),
    [
        ("we had pizza yesterday, so something thai", "thai", ()),
        ("we had pizza yesterday", None, ()),
        ("not pizza, we had it yesterday", None, (("style", "pizza"),)),       # the avoid is kept
        ("last time we hated the seafood, no seafood please", None, (("style", "seafood"),)),
    ],
)
def test_reader_skips_narrated_wishes(turn, style, avoid):
    s = stated_preferences([turn])
    assert (s.style, s.avoid) == (style, avoid)
