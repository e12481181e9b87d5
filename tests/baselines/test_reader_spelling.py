"""Misspelling correction of the preference reader (baselines.reader_spelling): hand-checked
words — typos one edit from a lexicon word are corrected, English false friends and names are
not, and ties or two-edit typos stay unread."""
from __future__ import annotations

import pytest

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.reader_spelling import corrected, correction, english, vocabulary


@pytest.mark.parametrize(
    ("word", "fixed"),
    [
        ("itallian", "italian"),      # one letter doubled (deletion)
        ("romantc", "romantic"),      # one letter dropped (insertion)
        ("chineese", "chinese"),
        ("japanse", "japanese"),
        ("frinedly", "friendly"),     # neighbours swapped: one OSA edit (Levenshtein: two)
        ("lovely", None),             # an English word one letter from "lively": kept
        ("quite", None),              # English (and 5 letters) — "quiet" is not read into it
        ("thali", None),              # 5 letters: an Indian dish one letter from "thai"
        ("italain", "italian"),
        ("itlaiann", None),           # two edits away
        ("parked", None),             # English with an ending stripped ("park" + ed)
        ("", None),
    ],
)
def test_correction(word, fixed):
    assert correction(word) == fixed


def test_guards_read_the_word_lists():
    assert {"lovely", "quite"} <= english() and "lively" in vocabulary() and "itallian" not in english()


@pytest.mark.parametrize(
    ("text", "out"),
    [
        ("Itallian food please", "italian food please"),           # sentence-initial, next word lower-case
        ("The Itallian Garden is closed", "The Itallian Garden is closed"),  # a name: kept
        ("we love Romantc places", "we love Romantc places"),     # capitalised inside a sentence: a name
        ("somewhere lovely and quite", "somewhere lovely and quite"),
        ("a romantc dinner. Itallian", "a romantic dinner. italian"),
    ],
)
def test_corrected_text(text, out):
    assert corrected(text) == out


def test_reader_uses_the_correction():
    s = stated_preferences(["a romantc itallian place, not chineese"])
    assert (s.style, s.ambience, s.avoid) == ("italian", ("romantic",), (("style", "chinese"),))
