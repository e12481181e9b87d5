"""The facet-free body of a synthetic review (:mod:`trace_crs.kb.review_writer` lays out the
whole review): body sentences by section of :mod:`trace_crs.kb.review_grammar`, some joined to
the previous one ("…, and …") because real sentences run longer, and the opening / closing
sentences.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from trace_crs.kb.review_grammar import SECTION_WEIGHTS, SECTIONS, Voice, body_sentence, facet_hits
from trace_crs.kb.review_grammar import templates as grammar_templates

JOIN_RATE = 0.3  # share of body sentences joined to the previous one ("…, and …"): real sentences run longer
_JOINABLE = {
    "the",
    "we",
    "it",
    "our",
    "everything",
    "things",
    "from",
    "nothing",
    "parts",
    "after",
    "even",
    "better",
    "not",
    "about",
    "my",
    "one",
    "if",
    "go",
    "tip:",
    "when",
    "honestly",
    "i",
}


def _join(first: str, second: str) -> str | None:
    """``"A was fine." + "The B was not."`` → ``"A was fine, and the B was not."`` (None when
    the second sentence does not start with a common word, e.g. a staff member's name)."""
    head = second.split(" ", 1)[0]
    if head.lower() not in _JOINABLE or not first.endswith("."):
        return None
    joined = f"{first[:-1]}, and {second if head == 'I' else second[0].lower() + second[1:]}"
    return None if facet_hits(joined) else joined


def body_sentences(
    rng: np.random.Generator, voice: Voice, mood: str, used: Collection[str], local: list[str], n: int
) -> list[str]:
    """Up to ``n`` new body sentences of sections drawn by ``SECTION_WEIGHTS`` (one that cannot be
    made new is left out), a share ``JOIN_RATE`` of them joined to the previous one."""
    out: list[str] = []
    for section in rng.choice(len(SECTIONS), size=n, p=SECTION_WEIGHTS):
        text = body_sentence(rng, voice, SECTIONS[int(section)], mood, used, local + out)
        if text is None:
            continue
        joined = _join(out[-1], text) if out and rng.random() < JOIN_RATE else None
        if joined is not None:
            out[-1] = joined
        else:
            out.append(text)
    return out


def opening(
    rng: np.random.Generator, voice: Voice, section: str, mood: str, used: Collection[str], local: list[str]
) -> list[str]:
    """One new sentence of ``section`` (opener, closer, …) when the grammar has templates for the
    POI type and mood, else none."""
    text = (
        body_sentence(rng, voice, section, mood, used, local, strict=True)
        if grammar_templates(section, voice.poi_type, mood)
        else None
    )
    return [text] if text is not None else []
