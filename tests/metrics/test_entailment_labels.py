"""Claim sentences (paper §3, Appendix L) strip every label the quote reader reads
(dialogues/quote_reader.py): single ``[Rn]`` and groups ``[R1, R2]``; hand-worked."""
from __future__ import annotations

import pytest

from trace_crs.metrics.entailment import claim_sentences


@pytest.mark.parametrize("text,claims", [
    ('The pasta is "fresh and hot" [R1].', ['The pasta is "fresh and hot" .']),
    # a group: "[R1, R2]" was left in the hypothesis by the single-label pattern
    ('The pasta is "fresh and hot" [R1, R2].', ['The pasta is "fresh and hot" .']),
    ('The pasta is "fresh and hot" [R1,R2, R3].', ['The pasta is "fresh and hot" .']),
    ('The pasta is "fresh and hot" [R1][R2].', ['The pasta is "fresh and hot" .']),
    # label first, typographic marks
    ('[R2] "fresh and hot" pasta here.', ['"fresh and hot" pasta here.']),
    ("The pasta is \u201cfresh and hot\u201d [R1, R2].", ["The pasta is \u201cfresh and hot\u201d ."]),
    # a sentence that is only labels has no word token left: not a claim
    ("Great place overall. [R1, R2].", ["Great place overall."]),
    # forms the reader does not read stay as written (lower case, parentheses)
    ("Quiet enough [r1] to talk.", ["Quiet enough [r1] to talk."]),
    ("Quiet enough (R1) to talk.", ["Quiet enough (R1) to talk."]),
    # a quote holding several review sentences is one claim in every form the reader reads
    ('Try A now. "Fresh pasta. Hot bread." [R1].', ["Try A now.", '"Fresh pasta. Hot bread." .']),
    ("Try A now. \u201cFresh pasta. Hot bread.\u201d [R1].", ["Try A now.", "\u201cFresh pasta. Hot bread.\u201d ."]),
    ("Try A now. \u00abDon\u2019t skip it. Hot bread.\u00bb [R1, R2].",
     ["Try A now.", "\u00abDon\u2019t skip it. Hot bread.\u00bb ."]),
    ("", []),
])
def test_claim_sentences_strip_every_label_form(text, claims):
    assert claim_sentences(text) == claims
