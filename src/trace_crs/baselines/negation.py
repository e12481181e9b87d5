"""Cue words and their scopes in one user turn, NegEx-style (Chapman et al. 2001), for the
public preference reader (:mod:`trace_crs.baselines.preferences`; paper Appendix F "S+KB").

A *cue* is a phrase that changes what the facet mentions near it mean:

* ``avoid``  — the traveller does not want the value: "no", "not", "without", "nothing",
  "anything but", "except", "rather than", "can't stand", "hates", … ("somewhere without wifi",
  "nothing loud"; a post cue agrees in number: "… is a no", "… are a no");
* ``unwant`` — the value is not required and not avoided either: "no need for", "don't need",
  "don't care about", "doesn't matter", "isn't needed", "not coming" ("no need for parking, we
  walk", "kids are not coming this time", "price doesn't matter");
* ``retract`` — a correction withdraws something said before: "scratch", "forget", "never
  mind", "drop" ("scratch the patio"); with nothing in its scope ("scratch that") it withdraws
  the mentions of the previous sentence; a value it names that was never wished for is avoided
  ("skip steakhouses please": :mod:`trace_crs.baselines.preferences`);
* ``replace`` — "make that", "change that to", "switch to": its mentions are wanted and
  replace the previous sentence's mentions of the same facet ("actually, make that quiet");
* ``hedge`` — "maybe", "ideally", "if possible", "-ish", "would be nice": the sentence's wanted
  values are soft (recorded, still wanted).

*Pseudo-cues* ("not only", "don't mind", "no problem", "not sure", "not far", "no worries",
"not bad") are masked first, as NegEx masks pseudo-negations (one list,
:data:`~trace_crs.baselines.negation_cues.PSEUDO`, also masked by the rejection reader), and a cue inside a matched keyword (the lexicon's
"not too loud", "no-frills") is no cue.  A *pre* cue governs the words after it up to the end
of its clause or ``WINDOW`` words; a *post* cue ("… isn't needed", "… doesn't matter") governs
its clause back to the clause start.  Clauses end at ``, ; : . ! ? —`` and at the
conjunctions of ``TERMINATORS`` ("but", "so", "because", …); "and"/"or" do not end a scope,
so "no music or TV" negates both.  Only the public text is read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from trace_crs.baselines.negation_cues import CUES, HEDGES, PSEUDO, TERMINATORS

WINDOW = 8  # words a pre cue reaches (NegEx uses 5; travellers' noun phrases run longer)

_BOUNDARY = re.compile(r"[,;:.!?()\"“”—–]|\s-\s")
_SENTENCE = re.compile(r"[.!?;]+|\n")
_WORDS = re.compile(r"[\w'-]+")
_NEEDED = re.compile(r"\b(?:needed|necessary|required|a must)\b", re.IGNORECASE)


class Cue(NamedTuple):
    """One cue: its kind (``avoid`` …), direction (``pre``/``post``) and the span it governs."""

    kind: str
    direction: str
    start: int
    end: int
    scope_start: int
    scope_end: int


def _alt(phrases: tuple[str, ...]) -> str:
    return "|".join(
        re.escape(p).replace(r"\ ", r"\s+").replace("'", "['’]?") for p in sorted(phrases, key=len, reverse=True)
    )


@cache
def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """Whole-phrase, case-insensitive alternation of ``phrases`` (longest first; any run of
    spaces inside a phrase, straight, curly or left-out apostrophes: "dont", "isnt", as typed on
    a phone)."""
    return re.compile(r"(?<![\w'’-])(?:" + _alt(phrases) + r")(?![\w'’])", re.IGNORECASE)


HEDGE_RE = re.compile(r"(?<![\w'’])(?:" + _alt(tuple(h for h in HEDGES if h != "-ish")) + r")(?![\w'’])", re.IGNORECASE)
_ISH = re.compile(r"-ish\b", re.IGNORECASE)


def normalise(text: str) -> str:
    """``text`` with curly apostrophes straightened and the suffix "-ish" blanked ("quiet-ish"
    → "quiet    "), lengths kept so offsets stay valid."""
    return re.sub(r"(?<=\w)-ish\b", "    ", text.replace("’", "'"), flags=re.IGNORECASE)


def sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``."""
    out, at = [], 0
    for m in _SENTENCE.finditer(text):
        out.append((at, m.start()))
        at = m.end()
    return [s for s in out + [(at, len(text))] if text[s[0] : s[1]].strip()]


def clause_bounds(text: str, at: int) -> tuple[int, int]:
    """The clause of ``text`` holding position ``at``: between boundary marks and terminators."""
    marks = [(m.start(), m.end()) for m in _BOUNDARY.finditer(text)]
    marks += [(m.start(), m.end()) for m in phrase_pattern(TERMINATORS).finditer(text)]
    start = max((e for s, e in marks if e <= at), default=0)
    end = min((s for s, e in marks if s >= at), default=len(text))
    return start, end


def _window_end(text: str, start: int, limit: int) -> int:
    words = list(_WORDS.finditer(text, start, limit))
    return words[WINDOW - 1].end() if len(words) >= WINDOW else limit


def pseudo_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every pseudo-cue of ``text`` ("no worries", "not bad"): phrases with
    a cue word that negate nothing (NegEx's pseudo-negations, Chapman et al. 2001)."""
    return [(m.start(), m.end()) for m in phrase_pattern(PSEUDO).finditer(text)]


def cues(text: str, keep_out: Sequence[tuple[int, int]] = ()) -> list[Cue]:
    """Every cue of ``text`` (already :func:`normalise`-d) in order, longest phrases first and
    non-overlapping; cues inside a ``keep_out`` span (a matched keyword) or a pseudo-cue dropped."""
    taken: list[tuple[int, int]] = list(keep_out)
    taken += pseudo_spans(text)
    found: list[Cue] = []
    groups = [(d, k, p) for d in ("post", "pre") for k, p in CUES[d].items()]
    matches = sorted(
        ((m.start(), m.end(), d, k) for d, k, p in groups for m in phrase_pattern(p).finditer(text)),
        key=lambda x: (-(x[1] - x[0]), x[0]),
    )
    for start, end, direction, kind in matches:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        if direction == "pre":  # the clause after the cue ("anything but" holds a terminator)
            scope_end = _window_end(text, end, clause_bounds(text, end)[1])
            if kind == "avoid" and _NEEDED.search(text, end, scope_end):  # "no parking needed"
                kind = "unwant"
            found.append(Cue(kind, direction, start, end, end, scope_end))
        else:
            found.append(Cue(kind, direction, start, end, clause_bounds(text, start)[0], start))
    return sorted(found, key=lambda c: c.start)


def governing(cue_list: list[Cue], start: int, end: int) -> Cue | None:
    """The cue whose scope holds the span ``[start, end)`` — the nearest one when several do."""
    holding = [c for c in cue_list if c.scope_start <= start and end <= c.scope_end]
    return min(holding, key=lambda c: min(abs(c.start - end), abs(start - c.end))) if holding else None


def hedged(text: str, start: int, end: int) -> bool:
    """Whether the mention ``[start, end)`` of ``text`` is hedged: its sentence carries a hedge
    phrase, or the word itself ends in "-ish" (read on the original text: :func:`normalise`
    blanks the suffix)."""
    if _ISH.match(text, end):
        return True
    for s, e in sentences(text):
        if s <= start and end <= e:
            return HEDGE_RE.search(text, s, e) is not None
    return False
