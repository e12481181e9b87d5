"""The LLM dialogue generator reads quotes with the one reader (trace_crs.dialogues.quote_reader).
tiny_kb: r00_r0 = "Great pasta here. The room was quiet all evening.", r00_r1 = "Very romantic feel! They have patio too."."""
from __future__ import annotations

from trace_crs.dialogues.llm_turns import parse_citations


def test_straight_text_is_read_and_snapped_as_before(tiny_kb):
    text, cites = parse_citations('"The room was quite all evening." [R1] and "They have patio too." [R2]',
                                  ["r00_r0", "r00_r1"], tiny_kb)
    assert text == '"The room was quiet all evening." [R1] and "They have patio too." [R2]'
    assert [(c["label"], c["quote"], c["start"], c["end"]) for c in cites] == [
        ("R1", "The room was quiet all evening.", 18, 49), ("R2", "They have patio too.", 20, 40)]


def test_label_first_and_curly_quotes_are_located_and_snapped_in_place(tiny_kb):
    text, cites = parse_citations('[R1] \u201cThe room was quite all evening.\u201d Also [R2] "They have patio too."',
                                  ["r00_r0", "r00_r1"], tiny_kb)
    assert text == '[R1] \u201cThe room was quiet all evening.\u201d Also [R2] "They have patio too."'
    assert [(c["label"], c["review_id"], c["start"], c["end"]) for c in cites] == [
        ("R1", "r00_r0", 18, 49), ("R2", "r00_r1", 20, 40)]


def test_label_groups_are_renumbered_and_cite_each_review(tiny_kb):
    labels = {"R3": "r00_r0", "R4": "r00_r1"}
    text, cites = parse_citations('"Great pasta here." [R4, R3] and [R3].', [], tiny_kb, labels)
    assert text == '"Great pasta here." [R1, R2] and [R2].'
    assert [(c["label"], c["review_id"], c["quote"], c["start"], c["end"]) for c in cites] == [
        ("R1", "r00_r1", "Great pasta here.", 0, len("Great pasta here.")),  # not in r00_r1: as before, 0..len
        ("R2", "r00_r0", "Great pasta here.", 0, 17)]
