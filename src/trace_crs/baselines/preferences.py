"""Preferences stated in the user turns, read from the public facet lexicon
(:func:`trace_crs.kb.lexicon.find_facets`), the public price vocabulary
(:func:`trace_crs.kb.price.price_ceiling`, with the reader-only budgets of :mod:`trace_crs.baselines.reader_price`) and the cue words of
:mod:`trace_crs.baselines.negation` — the structured side of Knowledge-Enhanced and the
attribute ranker of Hybrid-RRF (paper Appendix F, Table 8 "S+KB").

The turn is first cleaned up by :mod:`trace_crs.baselines.reader_text` (accents, plurals and
spaced hyphenated keywords folded; place names, the noun "budget" and request phrasings such
as "dogs welcome" handled), so real travellers' wording reads like the lexicon's. The names of the places the system knows (its candidates and the
KB's POIs of the city, passed as ``names``) are masked first by
:mod:`trace_crs.baselines.reader_names`: a place's name is not a wish ("Mae's Curry House isn't
what I had in mind" states nothing about Indian food); words outside a name read as before.

The result, :class:`Stated`, is what a deployed system could track from the text alone:

* **wanted** values — ``style``, ``noise`` and the price ceiling take the *last* mention, so a
  refinement ("too loud — somewhere quiet", "actually, make that quiet") overrides; ``ambience``
  and ``features`` collect every value mentioned;
* **avoided** values (``avoid``) — a mention in the scope of a negation cue ("without wifi",
  "nothing loud", "not touristy", "rather than lively");
* **either-of groups** (``either``) — values joined by "or" ("either Italian or Thai");
* **indifferent facets** (``indifferent``) — "price doesn't matter", "any cuisine", "we don't
  care about the vibe"; a value that is merely *not needed* ("no need for parking", "kids are
  not coming") or *withdrawn* ("scratch the patio", "scratch that") is dropped, not avoided —
  but a "withdrawn" value that was never wished for is avoided ("skip steakhouses please");
* **soft** values — wanted ones stated with a hedge ("maybe somewhere quiet-ish").

Statements apply in turn and text order: a later statement about a value overrides an earlier
one.  Whether a POI meets a constraint is :func:`trace_crs.kb.satisfaction.satisfies`, the test
that labels gold; :func:`satisfied` counts the met wanted constraints and either-of groups
and subtracts one per avoided value the POI has (partial satisfaction ranks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from trace_crs.baselines.negation import (
    Cue,
    clause_bounds,
    cues,
    governing,
    hedged,
    normalise,
    phrase_pattern,
    sentences,
)
from trace_crs.baselines.reader_names import masked, name_key
from trace_crs.baselines.reader_narration import narrated
from trace_crs.baselines.reader_price import ceiling as price_ceiling
from trace_crs.baselines.reader_price import mentions as price_mentions
from trace_crs.baselines.reader_spelling import corrected
from trace_crs.baselines.reader_text import extra_mentions, fold, place_spans
from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import find_facets
from trace_crs.kb.satisfaction import Constraint, count_satisfied, satisfies
from trace_crs.kb.schema import POI

FACETS: tuple[str, ...] = FACET_KEYS  # kb.facets: the canonical facets
SINGLE: tuple[str, ...] = ("style", "noise")
# Words naming a facet itself, for indifference ("any cuisine", "price doesn't matter").
FACET_NOUNS: dict[str, tuple[str, ...]] = {
    "style": ("cuisine", "cuisines", "food", "kind of food", "type of food", "kind of place", "type of place"),
    "price_max": ("price", "prices", "cost", "how much it costs", "money"),
    "noise": ("noise", "noise level", "volume"),
    "ambience": ("vibe", "atmosphere", "ambience", "ambiance", "mood", "decor", "feel"),
    "features": ("amenities", "extras", "facilities"),
}
_ANY = re.compile(r"(?:\b(?:any|whatever|whichever)\s+(?:kind\s+of\s+|type\s+of\s+|sort\s+of\s+)?)$", re.IGNORECASE)
# What a retraction without a facet in its scope refers back to: nothing, or a pronoun
# ("scratch that", "forget it", "never mind") — not a named place ("I'd rather skip Taco Loco").
_ANAPHOR = re.compile(r"\s*(?:(?:that|this|it|those|these|what i said|everything|all that)\b|[^\w\s]|$)", re.IGNORECASE)
_FILLER = re.compile(
    r"\b(?:a|an|the|some|somewhere|something|with|either|maybe|perhaps|place|spot)\b|[\s,]", re.IGNORECASE
)


@dataclass(frozen=True)
class Stated:
    """What the user turns state (module docstring)."""

    style: str | None = None
    noise: str | None = None
    price_max: int | None = None
    ambience: tuple[str, ...] = field(default_factory=tuple)
    features: tuple[str, ...] = field(default_factory=tuple)
    avoid: tuple[Constraint, ...] = field(default_factory=tuple)
    either: tuple[tuple[Constraint, ...], ...] = field(default_factory=tuple)
    indifferent: tuple[str, ...] = field(default_factory=tuple)
    soft: tuple[Constraint, ...] = field(default_factory=tuple)

    def constraints(self) -> int:
        """Number of stated wanted constraints."""
        return len(self.as_constraints())

    def as_constraints(self) -> list[Constraint]:
        """The wanted values as ``(facet, value)`` constraints of :mod:`trace_crs.kb.satisfaction`
        (avoided values and either-of groups are separate fields)."""
        out: list[Constraint] = [
            (f, v)
            for f, v in (("style", self.style), ("noise", self.noise), ("price_max", self.price_max))
            if v is not None
        ]
        return out + [("ambience", a) for a in self.ambience] + [("features", f) for f in self.features]


# (kind, payload): want/soft/avoid/unwant/retract → Constraint, either → group, indifferent → facet
Event = tuple[str, object]


@lru_cache(maxsize=4096)
def _events(
    text: str, previous: tuple[Constraint, ...], names: tuple[str, ...] = ()
) -> tuple[tuple[Event, ...], tuple[Constraint, ...]]:
    """The statements of one user turn in order, and the constraints its last sentence
    mentions (what a later "scratch that" withdraws).  ``previous``: the last sentence's
    mentions before this turn; ``names``: the place names masked first
    (:mod:`trace_crs.baselines.reader_names`).  Memoised: turn k's text recurs in every later turn."""
    text = corrected(text)  # "itallian" → "italian"; offsets below are the corrected text's
    norm = masked(fold(normalise(text)), names)  # "Mae's Curry House" is a place, not a wish
    found = sorted((start, end, facet, value) for facet in FACETS for value, start, end in find_facets(norm, facet))
    found += [m for m in extra_mentions(norm) if not any(m[0] < e and s < m[1] for s, e, _, _ in found)]
    places = place_spans(norm, found)
    mentions = sorted(m for m in found if not any(s <= m[0] and m[1] <= e for s, e in places))
    nouns = sorted(
        (m.start(), m.end(), facet)
        for facet, words in FACET_NOUNS.items()
        for m in phrase_pattern(words).finditer(norm)
    )
    cue_list = cues(norm, [(s, e) for s, e, _, _ in found])
    events: list[Event] = []
    last: tuple[Constraint, ...] = previous
    cue: Cue | None
    for s_start, s_end in sentences(norm):
        here = [m for m in mentions if s_start <= m[0] < s_end]
        for cue in cue_list:
            if not s_start <= cue.start < s_end:
                continue
            inside = [m for m in here if governing(cue_list, m[0], m[1]) == cue]
            if cue.kind == "retract" and not inside and _ANAPHOR.match(norm, cue.scope_start, cue.scope_end):
                # "scratch that": the previous sentence; "skip Kitchen Thibodeaux" rejects a place
                events += [("unwant", c) for c in last]
            if cue.kind == "replace":
                facets = {m[2] for m in inside}
                events += [("unwant", c) for c in last if c[0] in facets]
        for start, end, facet in nouns:
            if s_start <= start < s_end and not any(m[0] < end and start < m[1] for m in here):
                cue = governing(cue_list, start, end)
                if (cue is not None and cue.kind == "unwant") or _ANY.search(
                    norm[clause_bounds(norm, start)[0] : start]
                ):
                    events.append(("indifferent", facet))
        for group in _groups(norm, here, cue_list):
            cue = governing(cue_list, group[0][0], group[0][1])
            kind = "want" if cue is None or cue.kind == "replace" else cue.kind
            if kind == "want" and narrated(norm, group[0][0]):
                continue  # "we had pasta yesterday": told, not asked for
            cons = tuple(dict.fromkeys((m[2], m[3]) for m in group))
            if kind == "want" and len(cons) > 1:
                events.append(("either", cons))
            elif kind == "want":
                events.append(("soft" if hedged(text.replace("’", "'"), group[0][0], group[0][1]) else "want", cons[0]))
            else:
                events += [(kind, c) for c in cons]
        if here:
            last = tuple(dict.fromkeys((m[2], m[3]) for m in here))
    return tuple(events), last


def _groups(
    text: str, mentions: list[tuple[int, int, str, str]], cue_list: list[Cue]
) -> list[list[tuple[int, int, str, str]]]:
    """Mentions joined by "or" (with only fillers or commas between) into either-of groups;
    every other mention alone.  Members share the cue that governs them (none, or the same
    one: "no pizza or burgers"), and a comma list ("thai, korean or pho") one facet, so "isnt
    into museums, maybe a garden or park" and "not too loud, pizza or burgers" keep their first
    mention apart."""
    out: list[list[tuple[int, int, str, str]]] = []
    for m in mentions:
        if out:
            prev = out[-1][-1]
            between = text[prev[1] : m[0]]
            joint = _FILLER.sub("", between).lower()
            listed = joint == "" and "," in between and prev[2] == m[2] and _or_follows(text, m, mentions)
            same_cue = governing(cue_list, prev[0], prev[1]) == governing(cue_list, m[0], m[1])
            if same_cue and (joint in ("or", "nor") or listed):
                out[-1].append(m)
                continue
        out.append([m])
    return out


def _or_follows(text: str, m: tuple[int, int, str, str], mentions: list[tuple[int, int, str, str]]) -> bool:
    """Whether ``m`` is followed by "or <mention>" (a list "A, B or C")."""
    nxt = [n for n in mentions if n[0] > m[0]]
    return bool(nxt) and _FILLER.sub("", text[m[1] : nxt[0][0]]).lower() == "or"


def stated_preferences(user_texts: Iterable[str], poi_type: str | None = None, names: Iterable[str] = ()) -> Stated:
    """What ``user_texts`` (in turn order) state (module docstring); ``poi_type`` picks the
    dollar bands a "$150 a night" is read with (:mod:`trace_crs.kb.price`; None: restaurant);
    ``names``: the place names the system knows (candidates, KB POIs of the city), whose
    words are no preference (:mod:`trace_crs.baselines.reader_names`)."""
    texts = list(user_texts)
    known = name_key(names)
    wanted: dict[str, list[object]] = {f: [] for f in FACETS}
    avoid: list[Constraint] = []
    either: list[tuple[Constraint, ...]] = []
    indifferent: list[str] = []
    soft: set[Constraint] = set()
    wished: set[Constraint] = set()  # every value wished for so far, withdrawn or not
    price_at, price_off = -1, -1
    last: tuple[Constraint, ...] = ()
    # The price reader sees the same name mask: "The Cheap Eats Cafe" names a place, no budget.
    priced = [masked(normalise(t), known) for t in texts]
    for i, text in enumerate(texts):
        if price_mentions(priced[i], poi_type):  # baselines.reader_price: public + reader-only
            price_at = i
        events, last = _events(text, last, known)
        for kind, payload in events:
            if kind == "indifferent":
                facet = str(payload)
                if facet == "price_max":
                    price_off = i
                else:
                    wanted[facet] = []
                    avoid = [c for c in avoid if c[0] != facet]
                    either = [g for g in either if any(c[0] != facet for c in g)]
                indifferent = [f for f in indifferent if f != facet] + [facet]
                continue
            if kind == "either":
                either.append(payload)  # type: ignore[arg-type]
                wished.update(payload)  # type: ignore[arg-type]
                continue
            c: Constraint = payload  # type: ignore[assignment]
            facet, value = c
            if kind == "retract":  # "skip the patio" withdraws a wish; "skip steakhouses", never wished, avoids
                kind = "unwant" if c in wished else "avoid"
            if kind in ("want", "soft"):
                wished.add(c)
            avoid = [a for a in avoid if a != c]
            wanted[facet] = [v for v in wanted[facet] if v != value]
            soft.discard(c)
            if kind in ("want", "soft"):
                wanted[facet] = [value] if facet in SINGLE else wanted[facet] + [value]
                indifferent = [f for f in indifferent if f != facet]
                if kind == "soft":
                    soft.add(c)
            elif kind == "avoid":
                avoid.append(c)
    price = price_ceiling(priced, poi_type)  # "cheap-ish": a hedged budget is still one
    if price_off >= price_at and price_off >= 0:
        price = None
    single: dict[str, Any] = {f: (wanted[f][-1] if wanted[f] else None) for f in SINGLE}
    return Stated(
        style=single["style"],
        noise=single["noise"],
        price_max=price,
        ambience=tuple(sorted({str(v) for v in wanted["ambience"]})),
        features=tuple(sorted({str(v) for v in wanted["features"]})),
        avoid=tuple(sorted(set(avoid))),
        either=tuple(dict.fromkeys(either)),
        indifferent=tuple(sorted(set(indifferent))),
        soft=tuple(sorted(c for c in soft if c[1] in wanted[c[0]])),
    )


def satisfied(poi: POI, stated: Stated) -> int:
    """Wanted constraints ``poi`` meets, plus either-of groups it meets one member of, minus
    avoided values it has — each test :func:`trace_crs.kb.satisfaction.satisfies` (an unknown
    price or facet never satisfies, so it never counts as an avoided value either)."""
    groups = sum(any(satisfies(poi, c) for c in g) for g in stated.either)
    return count_satisfied(poi, stated.as_constraints()) + groups - count_satisfied(poi, list(stated.avoid))
