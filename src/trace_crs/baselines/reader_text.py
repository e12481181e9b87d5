"""What the preference reader (:mod:`trace_crs.baselines.preferences`) does to a real
traveller's turn before it looks for facet keywords (paper Appendix F "S+KB": what a deployed
system could read from the text alone).  Every step keeps the text's length, so offsets stay
valid for the cue scopes of :mod:`trace_crs.baselines.negation`:

* :func:`fold` — accents folded ("café" → "cafe"), a hyphenated keyword of the public facet
  lexicon written with a space hyphenated ("kid friendly", "laid back") and the plural of a
  one-word keyword read as the keyword ("bars" → "bar  ", "museums", "galleries"), since
  travellers write plurals the lexicon lists in the singular, and the comparative of a noise
  or ambience keyword as the keyword ("calmer", "quieter", "cozier") — not in a title-case word,
  which is most often a name ("The Morning Gardens"), unless it opens its sentence and a
  lower-case word follows ("Pools are a no", "Museums bore us": capitalised by grammar), nor
  inside a keyword already matched ("guided tours" stays the feature, not the tour style);
* :func:`place_spans` — stretches that name a place or the traveller's budget rather than a
  wish, so keywords inside them are no preference: the words after a proximity cue ("near the
  French Quarter", "walking distance from Italian Market"), a keyword followed by a place noun
  ("french quarter", "Italian Market area") and the noun "budget" ("our budget is $15", "on a
  budget this trip", "student budget"; not "a budget hotel");
* :func:`extra_mentions` — phrasings of a facet value the lexicon does not list because they
  are requests, not review words ("do they allow dogs", "dogs welcome", "bringing our pup",
  "can we sit outside", "without the tourist crowds").

The facet lexicon itself (``kb/data/facet_lexicon.yaml``) is shared with the review writer
and the dialogue simulator, so what only a *reader* needs lives here; nothing here comes from
the simulator's templates.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from trace_crs.baselines.negation_cues import PROXIMITY
from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import facet_lexicon, find_facets

Mention = tuple[int, int, str, str]  # (start, end, facet, value)
PLACE_WORDS = 4  # words after a proximity cue read as the place's name
_CUE = re.compile(r"(?<![\w'-])" + PROXIMITY + r"\s+(?:the\s+|a\s+|an\s+)?", re.IGNORECASE)
_NAME_WORD = re.compile(r"[\w'&.-]+")
_NAME_STOP = frozenset(
    "with and or that which where who for but please pls so if in on at to because we i it is are".split()
)
_ACTIVITY = re.compile(r"\b(?:walk|walking|stroll|strolling|wander|wandering|look|looking|show|get|go)\s+$", re.I)
_BARE = re.compile(r"(?:walk(?:ing)?|by)\s+(?:the\s+|a\s+|an\s+)?", re.IGNORECASE)
_PLACE_NOUN = re.compile(
    r"\s+(?:quarter|market|square|street|st|avenue|ave|road|rd|boulevard|blvd|district|neighbou?rhood|village|"
    r"hall|center|centre|station|terminal|airport)\b",
    re.IGNORECASE,
)
# "budget" is the noun, not the hotel style, after a determiner or a noun/adjective of a budget
# ("on a budget", "student budget") unless a place noun follows ("a budget hotel", "a budget option").
_BUDGET_NOUN = re.compile(
    r"\b(?:(?:my|our|your|his|her|their|tight|modest|small|limited|strict|a|an|the|student|backpacker|shoestring|"
    r"low|travel|trip|fixed|total|daily|nightly)\s+budget(?![\w-])(?!\s+(?:hotels?|motels?|inns?|hostels?|rooms?|"
    r"stays?|chains?|accommodations?|lodging|options?|places?|spots?|ones?|picks?|choices?|kinds?|sorts?|types?|style)\b)"
    r"|budget(?=\s+(?:of|for|around|about|under|limit|max)\b))",
    re.IGNORECASE,
)
EXTRA: dict[tuple[str, str], re.Pattern[str]] = {
    ("features", "pet_friendly"): re.compile(
        r"\b(?:(?:allows?|allowing|welcomes?|accepts?|takes?)\s+(?:dogs?|pets?|pups?|puppies)|"
        r"(?:dogs?|pets?|pups?)\s+(?:are\s+|is\s+)?(?:welcome|allowed|ok|okay|friendly)|"
        r"(?:bring|bringing|with)\s+(?:our|my|the|a)\s+(?:dogs?|pups?|puppy|pets?))\b",
        re.IGNORECASE,
    ),
    ("features", "outdoor_seating"): re.compile(
        r"\b(?:sit|sitting|eat|eating|dine|dining|seated|seating)\s+(?:outside|outdoors|out\s+front)\b",
        re.IGNORECASE,
    ),
    # the noun used as a modifier ("tourist crowds", "tourist traps"): the lexicon lists "touristy"
    ("ambience", "touristy"): re.compile(
        r"\btourist\s+(?:crowds?|traps?|spots?|places?|areas?|hordes?|hotspots?|joints?|strips?|zones?)\b"
        r"|\b(?:full\s+of|crowded\s+with|packed\s+with|overrun\s+(?:by|with))\s+tourists\b",
        re.IGNORECASE,
    ),
}


@cache
def _keywords() -> frozenset[str]:
    """The one-word keywords of the facet lexicon, lower-cased."""
    lex = facet_lexicon()
    return frozenset(w.lower() for f in FACET_KEYS if f in lex for ws in lex[f].values() for w in ws if " " not in w)


def _singular(word: str) -> str | None:
    """The lexicon keyword ``word`` is the plural of, or None."""
    low, kw = word.lower(), _keywords()
    if low in kw or len(low) < 4 or not low.endswith("s"):
        return None
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        if low.endswith(cut) and low[: -len(cut)] + add in kw:
            return low[: -len(cut)] + add
    return None


@cache
def _spaced() -> re.Pattern[str] | None:
    """Hyphenated keywords written with a space instead ("kid friendly", "laid back")."""
    lex = facet_lexicon()
    words = {w.lower() for f in FACET_KEYS if f in lex for ws in lex[f].values() for w in ws if "-" in w}
    alts = sorted((re.escape(w).replace(r"\-", r"\s") for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])", re.IGNORECASE) if alts else None


@cache
def _gradable() -> frozenset[str]:
    """The one-word keywords of the gradable facets (noise, ambience), lower-cased: the words a
    comparative is made of ("calmer", "quieter", "cozier"); not features, so "later" stays."""
    lex = facet_lexicon()
    return frozenset(
        w.lower() for f in ("noise", "ambience") if f in lex for ws in lex[f].values() for w in ws if " " not in w
    )


def _positive(word: str) -> str | None:
    """The gradable keyword ``word`` is the comparative of ("calmer" → "calm"), or None."""
    low, kw = word.lower(), _gradable()
    if low in _keywords() or len(low) < 5 or not low.endswith("er"):
        return None
    for cut, add in (("ier", "y"), ("er", ""), ("r", "")):  # cozier, calmer, nicer (nice)
        if low.endswith(cut) and low[: -len(cut)] + add in kw:
            return low[: -len(cut)] + add
    return None


_NOT_NAME_NEXT = re.compile(r"[\s,]+[a-z]|\s*(?:[.!?,;:]|$)")  # a lower-case word or the sentence's end


def _named(text: str, m: re.Match[str]) -> bool:
    """Whether the title-case word ``m`` reads as (part of) a name: not when it opens a sentence
    and a lower-case word or the sentence's end follows ("Pools are a no", "Museums?"; "Gardens
    Hotel is full" stays a name)."""
    before = text[: m.start()].rstrip(" \t\"'“(")
    opens = not before or before[-1] in ".!?\n"
    return not (opens and _NOT_NAME_NEXT.match(text, m.end()))


def fold(text: str) -> str:
    """``text`` with accents folded, keyword plurals singular and hyphenated keywords written
    with a space hyphenated, padded to the same length."""
    text = "".join(unicodedata.normalize("NFD", ch)[0] if ord(ch) > 127 else ch for ch in text)
    spaced = _spaced()
    if spaced is not None:
        text = spaced.sub(lambda m: re.sub(r"\s", "-", m.group(0)), text)

    kept = [(a, b) for f in FACET_KEYS for _, a, b in find_facets(text, f)]  # "guided tours" is a keyword

    def one(m: re.Match[str]) -> str:
        if (m.group(0).istitle() and _named(text, m)) or any(
            a <= m.start() < b for a, b in kept
        ):  # "The Morning Gardens": a name
            return m.group(0)
        base = _singular(m.group(0)) or _positive(m.group(0))
        return m.group(0) if base is None else base.ljust(len(m.group(0)))

    return re.sub(r"[A-Za-z]+", one, text)


def place_spans(text: str, mentions: list[Mention]) -> list[tuple[int, int]]:
    """Spans of ``text`` naming a place or the budget (module docstring); a proximity cue that
    is itself part of a keyword ("walking tour") opens none."""
    out = [(m.start(), m.end()) for m in _BUDGET_NOUN.finditer(text)]
    for m in _CUE.finditer(text):
        if any(s < m.end() and m.start() < e for s, e, _, _ in mentions):
            continue
        if _BARE.fullmatch(m.group(0)) or (
            m.group(0).lower().startswith("around") and _ACTIVITY.search(text[: m.start()])
        ):
            continue  # "walk around a park", "surrounded by children": no place to be near
        end, words = m.end(), 0
        for w in _NAME_WORD.finditer(text, m.end()):
            if text[end : w.start()].strip() or w.group(0).lower() in _NAME_STOP or words == PLACE_WORDS:
                break
            end, words = w.end(), words + 1
        if words:
            out.append((m.end(), end))
    for s, e, _, _ in mentions:
        noun = _PLACE_NOUN.match(text, e)
        if noun:
            out.append((s, noun.end()))
    return out


def extra_mentions(text: str) -> list[Mention]:
    """Mentions of the reader-only phrasings of :data:`EXTRA` in ``text``."""
    return [(m.start(), m.end(), facet, value) for (facet, value), p in EXTRA.items() for m in p.finditer(text)]
