"""The one quote reader (paper §3, App. J: a verbatim review span attributed to a numbered review).
Every expected reading below is worked by hand from the module's rules."""
from __future__ import annotations

import random

import pytest

from trace_crs.dialogues.quote_reader import (QUOTE_RE, Quote, blank_quotes, label_names, parse_quotes,
                                              quote_spans)


def read(text):
    return [(q.text, q.labels) for q in parse_quotes(text)]


@pytest.mark.parametrize(("text", "want"), [
    # the canonical form and its typographic variants
    ('Go: "great pasta here" [R1].', [("great pasta here", ("R1",))]),
    ("Go: \u201cgreat pasta here\u201d [R2].", [("great pasta here", ("R2",))]),
    ("Go: \u201egreat pasta here\u201c [R2].", [("great pasta here", ("R2",))]),
    ("Go: \u00abgreat pasta here\u00bb [R2].", [("great pasta here", ("R2",))]),
    # several labels after one quote: one quote citing each, in order, a repeat once
    ('"great pasta here" [R1, R2]', [("great pasta here", ("R1", "R2"))]),
    ('"great pasta here" [R1][R3]', [("great pasta here", ("R1", "R3"))]),
    ('"great pasta here" [R1] [R3] [R1]', [("great pasta here", ("R1", "R3"))]),
    ("\u201cgreat pasta here\u201d [R2,R1]", [("great pasta here", ("R2", "R1"))]),
    # label first: directly before the quote (a colon allowed), no label of its own after it
    ('[R1] "great pasta here"', [("great pasta here", ("R1",))]),
    ('[R1]: "great pasta here".', [("great pasta here", ("R1",))]),
    ("[R1, R2] \u201cgreat pasta here\u201d", [("great pasta here", ("R1", "R2"))]),
    # a stream of label-first quotes: the label after "a" opens "b", it does not close "a"
    ('[R1] "quiet room at night" [R2] "kind and fast staff"',
     [("quiet room at night", ("R1",)), ("kind and fast staff", ("R2",))]),
    # a label that belongs to the previous quote is not also the next quote's label
    ('"quiet room at night" [R1] "kind and fast staff"', [("quiet room at night", ("R1",))]),
    ('"quiet room at night" [R1] "kind and fast staff" [R2]',
     [("quiet room at night", ("R1",)), ("kind and fast staff", ("R2",))]),
    # a further label that directly leads the next quote is that quote's, not the previous one's
    ('"quiet room at night" [R1] [R2] "kind and fast staff"',
     [("quiet room at night", ("R1",)), ("kind and fast staff", ("R2",))]),
    ('"quiet room at night" [R1] [R2] [R3] "kind and fast staff"',
     [("quiet room at night", ("R1", "R2")), ("kind and fast staff", ("R3",))]),
    # a label before and one after: the trailing label wins (App. J's form), the leading one is bare
    ('[R1] "quiet room at night" [R2].', [("quiet room at night", ("R2",))]),
    # mixed: a trailing quote, then a label-first one in what is left
    ('"quiet room at night" [R1]. Also [R2] "kind and fast staff".',
     [("quiet room at night", ("R1",)), ("kind and fast staff", ("R2",))]),
    # apostrophes are not quote marks; single quotes are not read
    ('"don\'t miss the pasta" [R1]', [("don't miss the pasta", ("R1",))]),
    ("'don\u2019t miss the pasta' [R1]", []),
    # a quote spanning lines keeps its line break (grounding collapses white space)
    ('Go: "great pasta,\nkind staff" [R1]', [("great pasta,\nkind staff", ("R1",))]),
    # a label on the next line after a quote is still its label (as QUOTE_RE reads it) ...
    ('"great pasta here"\n[R1]', [("great pasta here", ("R1",))]),
    # ... but a second label on a new line starts a new label-first quote
    ('"great pasta here" [R1]\n[R2] "kind staff too"', [("great pasta here", ("R1",)), ("kind staff too", ("R2",))]),
    # nested marks: typographic inside straight and straight inside typographic are quote text
    ('"the \u201cbest\u201d pasta in town" [R1]', [("the \u201cbest\u201d pasta in town", ("R1",))]),
    ('\u201cthe "best" pasta in town\u201d [R1]', [('the "best" pasta in town', ("R1",))]),
    # straight inside straight pairs as regular expressions pair it (documented, unchanged)
    ('"She said "wow" twice" [R1]', [(" twice", ("R1",))]),
    # forms not read: lower case, parentheses, no label, a bare label
    ('"great pasta here" [r1]', []), ('"great pasta here" (R1)', []), ('"great pasta here"', []),
    ("see [R1]", []), ("", []),
])
def test_reading(text, want):
    assert read(text) == want


def test_offsets_point_at_the_opening_mark_and_spans_cover_the_labels():
    text = 'A [R1] "quiet room" and "kind staff" [R2, R3].'
    (a, b, q1), (c, d, q2) = quote_spans(text)
    assert (a, b, q1.start, text[q1.start]) == (2, 19, 7, '"')  # '[R1] "quiet room"': 17 characters
    assert (c, d, q2.start) == (24, 45, 24)  # '"kind staff" [R2, R3]'
    assert q2 == Quote("kind staff", "R2", 24, ("R2", "R3"))
    assert blank_quotes(text) == "A " + " " * 17 + " and " + " " * 21 + "."


def test_a_single_label_quote_equals_the_old_record():
    assert parse_quotes('"x y" [R4]') == [Quote("x y", "R4", 0)]  # labels default to (label,)


def test_label_names_open_groups():
    assert label_names("a [R1] b [R2, R10][R3] c [r4] (R5)") == ["R1", "R2", "R10", "R3"]


def _straight_text(rng: random.Random) -> str:
    parts = ['"', "[R1]", "[R2]", " ", "great pasta", "\n", "x", "[R1", "R3]", ".", ", "]
    return "".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))


def test_straight_single_label_text_reads_exactly_as_quote_re():
    # the canonical form (every template baseline, the generators) reads as before: checked on
    # random strings of straight quote marks and labels where no quote is label-first
    rng = random.Random(42)
    checked = 0
    for _ in range(20_000):
        text = _straight_text(rng)
        spans = quote_spans(text)
        if any(a < q.start for a, _, q in spans):
            continue  # a label-first reading changed it (see test_reading)
        old = [Quote(m.group(1), m.group(2), m.start()) for m in QUOTE_RE.finditer(text)]
        new = [Quote(q.text, q.label, q.start) for q in parse_quotes(text) if len(q.labels) == 1]
        if all(len(q.labels) == 1 for q in parse_quotes(text)):
            assert new == old, text
            checked += 1
    assert checked > 10_000


@pytest.mark.parametrize("text", ["[R1] " * 4000, "[R1]" * 3000 + ' "x', "[R1]\n" * 4000, '"' * 8000 + " [R1]"])
def test_degenerate_label_runs_read_in_linear_time(text):
    # a label run is matched whole (not from each of its labels): 4000 labels in ~0.01 s, where a
    # regex started at every label took 4-9 s (quadratic); the bound leaves room for a loaded machine
    import time
    t0 = time.perf_counter()
    assert parse_quotes(text) == []
    assert time.perf_counter() - t0 < 2.0
