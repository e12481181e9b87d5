"""Which suggestions did the user turn down?  Read from the user's words as a deployed system
would (paper §2.2 "rejection and recovery"; no leakage: rejected POIs are the ones the
user actually turned down, not every POI of the last system turn).

A user turn is split into clauses (sentence punctuation, commas, "but"/"though"/"whereas").
Each offered POI the turn refers to — by name, or by an ordinal ("the first one", "the latter")
— takes the polarity of the nearest cue in its clause: the one before it, else the one after
("I'll take A, not B" rejects B only; "A won't work" rejects A).  A turn that refers to no
offered POI rejects all of them when its first cue is a rejection ("Not quite. …") or it says
"neither"/"none of them", and none when its first cue accepts ("Sounds perfect").  Besides
negations, "nah", "been (ate, stayed) there", a complaint about the price or the distance ("a
bit pricey for us", "out of our price range", "out of the way") and asking for one closer or
cheaper ("anything closer?"; not "anything calmer?", a refinement) turn a place down; "that
one" only points at a place.  In a turn that names no offered place, a cue after the last
"but"/"though"/"however" decides ("looks lovely, but a bit far"), else its first cue.  The cue
lists are public English, not the simulator's templates.  Pseudo-cues — a cue word that turns
nothing down ("no worries, that works", "not bad at all", "no rush", "can't complain") — are
masked first, the negation reader's list (:func:`trace_crs.baselines.negation.pseudo_spans`);
"too" that ends its clause means "also" ("that works too!"), not "too far".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trace_crs.baselines.negation import pseudo_spans

REJECT = re.compile(
    r"\b(not|no|nope|don'?t|doesn'?t|isn'?t|aren'?t|won'?t|wouldn'?t|can'?t|cannot|never|neither|"
    r"nor|none|skip|pass on|instead|else|another|different|too(?!\s*(?:[.!?,;:)]|$))|other than|rather not|avoid|nah|naw|meh|"
    r"hates?|dislikes?|"
    # no cue word, still a "no": been (ate, stayed…) there before; a complaint about the price
    # or the distance, also as asking for one closer or cheaper ("anything closer?") — not for
    # one "calmer" or "nicer", a refinement that need not turn the place down (§2.2 rejection)
    r"(?:been|gone|went|ate|eaten|stayed|had (?:dinner|lunch|breakfast|brunch|drinks)) there|"
    r"already (?:been|went|ate|tried|done)|(?:a bit|a little|kinda|kind of|rather|quite|pretty|way|bit) "
    r"(?:pricey|expensive|steep|much for us|far)|out of (?:our|my) (?:price range|budget)|over (?:our|my) budget|"
    r"out of the way|far away|(?:anything|something|somewhere|anywhere|someplace|any place|options?) "
    r"(?:(?:a )?(?:bit |little |lot |tad )?)(?:closer|nearer|cheaper|more central|more affordable|less expensive|less pricey))\b",
    re.I,
)
ACCEPT = re.compile(
    r"\b(sounds? (?:good|great|perfect|lovely|nice|ideal)|perfect|i'?ll take|take it|go with|"
    r"going with|it is|book (?:it|that)|works for (?:me|us)|let'?s do|settled)\b",
    re.I,
)
REJECT_ALL = re.compile(r"\b(neither|none of (?:them|those|these)|both (?:are|sound) (?:off|wrong))\b", re.I)
ORDINALS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"\bthe (?:first|former)(?: one| option)?\b", re.I), 0),
    (re.compile(r"\bthe (?:second|latter)(?: one| option)?\b", re.I), 1),
    (re.compile(r"\bthe third(?: one| option)?\b", re.I), 2),
)
CONTRAST = re.compile(r"\b(?:but|though|however|although)\b", re.I)
CLAUSE = re.compile(r"[.;!?,]+|\s(?:but|though|although|whereas)\s", re.I)


def _mentions(text: str, offered: Sequence[str], names: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, poi_id) of every reference to an offered POI, by name or ordinal."""
    found: list[tuple[int, int, str]] = []
    low = text.casefold()
    for poi, name in zip(offered, names, strict=False):
        key = name.casefold()
        start = low.find(key) if key else -1
        while start >= 0:
            found.append((start, start + len(key), poi))
            start = low.find(key, start + len(key))
    for pattern, index in ORDINALS:
        if index < len(offered):
            found += [(m.start(), m.end(), offered[index]) for m in pattern.finditer(text)]
    return sorted(found)


def _mask(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """The text with every mention and every pseudo-cue blanked, so neither a name ("No. 5
    Bistro") nor a "no worries" reads as a cue."""
    chars = list(text)
    for start, end in [(s, e) for s, e, _ in spans] + pseudo_spans(text):
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _cues(text: str) -> list[tuple[int, bool]]:
    """(position, is_rejection) of every cue, in text order."""
    cues = [(m.start(), True) for m in REJECT.finditer(text)]
    cues += [(m.start(), False) for m in ACCEPT.finditer(text)]
    return sorted(cues)


def rejected_in_turn(text: str, offered: Sequence[str], names: Sequence[str]) -> set[str]:
    """The offered POIs (ids, in the order the system named them, with their ``names``) that
    the user turn ``text`` turns down."""
    if not offered:
        return set()
    spans = _mentions(text, offered, names)
    masked = _mask(text, spans)
    if REJECT_ALL.search(masked):
        return set(offered)
    if not spans:
        cues = _cues(masked)
        turn = [m.end() for m in CONTRAST.finditer(masked)]  # "sounds good, but a bit far": what follows decides
        later = [c for c in cues if turn and c[0] >= turn[-1]]
        first = later[0] if later else cues[0] if cues else None
        return set(offered) if first and first[1] else set()
    bounds = [0] + [m.end() for m in CLAUSE.finditer(masked)] + [len(masked) + 1]
    rejected: set[str] = set()
    undecided: set[str] = set()
    for start, _end, poi in spans:
        lo = max(b for b in bounds if b <= start)
        hi = min(b for b in bounds if b > start)
        cues = [(pos, rej) for pos, rej in _cues(masked[lo:hi])]
        before = [rej for pos, rej in cues if lo + pos < start]
        after = [rej for pos, rej in cues if lo + pos > start]
        polarity = before[-1] if before else (after[0] if after else None)
        if polarity:
            rejected.add(poi)
        elif polarity is None:
            undecided.add(poi)
    if undecided and not rejected and undecided == {poi for _, _, poi in spans}:
        cues = _cues(masked)  # "A? Hmm, no.": the turn's first cue decides for the POIs it names
        return undecided if cues and cues[0][1] else set()
    return rejected
