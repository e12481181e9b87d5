"""Narration in a traveller's turn: clauses that tell what already happened ("we had pasta
yesterday", "the hotel pool was closed all week", "my friend said the french place was
great") rather than ask for something.  A facet keyword in such a clause is no wish, so the
preference reader (:mod:`trace_crs.baselines.preferences`) does not read it as wanted (paper
§2.2: the user's stated preferences; Appendix F "S+KB": what the text alone says).  Avoided
values stay read ("not Italian, we had pasta yesterday" still avoids Italian from its first
clause; a narrated dislike is still a dislike).

A clause (:func:`trace_crs.baselines.negation.clause_bounds`) narrates when it holds

* a past time: "yesterday", "last night/time/week/trip/…", "the other day", "… ago",
  "earlier today"; or
* a subject with a past-tense verb of doing or saying: "we had", "I ate", "they went",
  "my friend said", "we already tried", "was/were <adjective>" ("the pool was closed") —
  but not a polite present wish in the past form ("I was hoping for", "we were thinking") nor
  "what I had in mind".
"""

from __future__ import annotations

import re

from trace_crs.baselines.negation import clause_bounds

PAST_TIME = re.compile(
    r"\b(?:yesterday|last\s+(?:night|time|week|weekend|month|year|trip|visit|summer|winter)|the\s+other\s+day|"
    r"earlier\s+today|(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE,
)
PAST_DEED = re.compile(
    r"\b(?:we|i|they|he|she|(?:my|our)\s+\w+)\s+(?:already\s+|just\s+|also\s+|never\s+)?"
    r"(?:had|ate|went|did|tried|visited|saw|stayed|loved|liked|enjoyed|hated|said|told|got|found|were|was)\b"
    r"(?!\s+(?:hoping|thinking|wondering|looking|planning|going|after|wanting|in\s+mind))",
    re.IGNORECASE,
)
PAST_STATE = re.compile(
    r"\b(?:was|were)\s+(?:\w+\s+)?(?:closed|great|amazing|awful|terrible|good|bad|fine|nice|full|packed|"
    r"noisy|loud|dirty|expensive|cheap|delicious|disappointing)\b",
    re.IGNORECASE,
)


def narrated(text: str, start: int) -> bool:
    """Whether position ``start`` of ``text`` lies in a narrating clause (module docstring)."""
    lo, hi = clause_bounds(text, start)
    clause = text[lo:hi]
    return any(p.search(clause) for p in (PAST_TIME, PAST_DEED, PAST_STATE))
