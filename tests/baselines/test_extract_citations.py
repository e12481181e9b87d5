"""What an LLM baseline records as its citations (and RAG-Citation's retry checks) reads quotes as
the scorer does (trace_crs.dialogues.quote_reader).  Reviews are tinykb's (hand-written)."""
from __future__ import annotations

import pytest

from trace_crs.baselines.llm_common import Evidence, extract_citations

PASTA = "The pasta was delicious and the risotto was creamy."  # rv_r1_1 from offset 0
TACOS = "Cheap tacos and great burritos."  # rv_r2_1 from offset 0


@pytest.fixture
def evidence():
    ev = Evidence()
    ev.add("rv_r1_1", "excerpt 1")
    ev.add("rv_r2_1", "excerpt 2")
    return ev


def cites(text, evidence, kb):
    return [(c["label"], c["review_id"], c["quote"], c.get("start"), c.get("end"))
            for c in extract_citations(text, evidence, kb)]


@pytest.mark.parametrize("text", [
    f'Try it: "{PASTA}" [R1]',                 # canonical (recorded before too)
    f"Try it: \u201c{PASTA}\u201d [R1]",       # curly marks: before, no record and "no quote" for the retry
    f'Try it: [R1] "{PASTA}"',                 # label first
    f"Try it: [R1]: \u00ab{PASTA}\u00bb",
])
def test_every_form_the_scorer_reads_is_recorded(text, evidence, kb):
    assert cites(text, evidence, kb) == [("R1", "rv_r1_1", PASTA, 0, len(PASTA))]


def test_several_labels_record_one_citation_each(evidence, kb):
    got = cites(f'"{TACOS}" [R1, R2]', evidence, kb)
    # not verbatim in rv_r1_1: recorded without offsets (as before for a non-verbatim quote)
    assert got == [("R1", "rv_r1_1", TACOS, None, None), ("R2", "rv_r2_1", TACOS, 0, len(TACOS))]


def test_unshown_labels_and_unread_forms_record_nothing(evidence, kb):
    assert cites(f'"{PASTA}" [R7]', evidence, kb) == []
    assert cites(f'"{PASTA}" [r1] and "{TACOS}" (R2)', evidence, kb) == []
    assert cites(f'"{PASTA}" [R1, R7]', evidence, kb) == [("R1", "rv_r1_1", PASTA, 0, len(PASTA))]
