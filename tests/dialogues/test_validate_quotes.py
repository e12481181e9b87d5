"""The validator reads a turn's quotes and labels as the scorer does (dialogues/quote_reader.py):
every form the reader reads, hand-worked on the tiny KB (tests/dialogues/conftest.py)."""
from __future__ import annotations

import pytest

from trace_crs.dialogues.validate import _turn_failures

# Reviews r00_r0 and r01_r0 of the tiny KB (two quiet Italian restaurants) share their text,
# "Great pasta here. The room was quiet all evening.", so one quote can cite both.
QUOTE = "Great pasta here."
POOL = {"candidate_poi_ids": ["r00", "r01", "r02", "r03", "r04", "r05", "r06", "r07"]}


def _turn(text: str, labels: tuple[str, ...] = ("R1",)) -> dict:
    reviews = {"R1": "r00_r0", "R2": "r01_r0"}
    return {
        "turn_id": 4, "role": "system", "action": "compare", "text": text,
        "referenced_poi_ids": ["r00", "r01"], "referenced_review_ids": ["r00_r0", "r01_r0"],
        "gold_poi_ids": ["r00", "r01"], "acceptable_alternative_poi_ids": [],
        "citations": [{"label": lab, "review_id": reviews[lab], "quote": QUOTE, "start": 0, "end": len(QUOTE)}
                      for lab in labels],
    }


@pytest.mark.parametrize("text,labels,failures", [
    # the canonical form
    (f'Both: "{QUOTE}" [R1].', ("R1",), []),
    # typographic marks, label first, label first with a colon: the scorer reads each
    (f"Both: \u201c{QUOTE}\u201d [R1].", ("R1",), []),
    (f"Both: \u00ab{QUOTE}\u00bb [R1].", ("R1",), []),
    (f'Both: [R1] "{QUOTE}" says it.', ("R1",), []),
    (f'Both: [R1]: "{QUOTE}"', ("R1",), []),
    # one quote citing two reviews: a group, adjacent labels, spaced labels
    (f'Both: "{QUOTE}" [R1, R2].', ("R1", "R2"), []),
    (f'Both: "{QUOTE}" [R1][R2].', ("R1", "R2"), []),
    (f'Both: "{QUOTE}" [R1] [R2].', ("R1", "R2"), []),
    # a group naming a label no citation has: R2 dangles (LABEL_RE.findall saw no label in "[R1, R2]")
    (f'Both: "{QUOTE}" [R1, R2].', ("R1",), [("dangling_label", "turn 4: [R2]")]),
    (f'Both: "{QUOTE}" [R1, R3, R2].', ("R1",),
     [("dangling_label", "turn 4: [R2]"), ("dangling_label", "turn 4: [R3]")]),
    # a citation whose label the text puts on no quote
    (f'Both: "{QUOTE}" [R1]. And [R2] too.', ("R1", "R2"), [("quote_not_in_text", "turn 4: R2")]),
    # forms the reader does not read: lower-case label, parentheses, single quotes, no label
    (f'Both: "{QUOTE}" [r1].', ("R1",), [("quote_not_in_text", "turn 4: R1")]),
    (f'Both: "{QUOTE}" (R1).', ("R1",), [("quote_not_in_text", "turn 4: R1")]),
    (f"Both: '{QUOTE}' [R1].", ("R1",), [("quote_not_in_text", "turn 4: R1")]),
    (f'Both: "{QUOTE}".', ("R1",), [("quote_not_in_text", "turn 4: R1")]),
    # the quote read under its label must be the cited one
    ('Both: "Great pasta." [R1].', ("R1",), [("quote_not_in_text", "turn 4: R1")]),
])
def test_turn_quotes_and_labels_are_read_as_the_scorer_reads_them(tiny_kb, text, labels, failures):
    assert _turn_failures(_turn(text, labels), POOL, tiny_kb) == failures


def test_a_dangling_label_in_a_group_was_missed_by_the_single_label_pattern():
    """The old check (``LABEL_RE.findall``) read no label in a group: the case above is new."""
    from trace_crs.dialogues.quote_reader import LABEL_RE, label_names

    assert LABEL_RE.findall("[R1, R2]") == [] and label_names("[R1, R2]") == ["R1", "R2"]
