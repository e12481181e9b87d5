"""Budgets as travellers write them that the public price vocabulary (:mod:`trace_crs.kb.price`,
``kb/data/price_words.yaml``) does not read — reader-only, because that vocabulary is shared
with the dialogue generator and the price-alignment metric (paper §3 "Price Alignment",
Appendix J), which must stay as they are.  Read by the preference reader
(:mod:`trace_crs.baselines.preferences`):

* amounts in words ("under fifty dollars", "under a hundred and fifty"): numbers written in
  words become digits first (``text2num``'s ``alpha2digit``), then everything below reads the digits;
* pounds and euros ("£20 a head", "15 euros each") on the dollar bands (the nominal amount: no
  exchange rate), and a range with a per-unit by its upper end ("80-100 a night"; also "2-4
  each night", a known misreading);
* amounts with a money word or a per-unit instead of a ``$`` ("50 bucks each", "under 90 a
  night", "15 dollars a head max"): a qualifier of the public vocabulary before the number,
  or none when the amount carries a money word and a per-unit or a trailing "max"/"tops";
  a bare number needs a ceiling word ("under fifty", "up to 40"; not "around 7") and no other
  unit after it ("under 30 minutes", "up to 4 people", "max 2 kids" are no budget);
* a ceiling said as a negated "more than" ("can't spend more than 50 bucks", "nothing over
  $200 a night"), which the public vocabulary skips as negated;
* a few phrases of a tight budget the public list lacks (:data:`PHRASES`: "money's tight"), and
  the idioms of :data:`IDIOMS`, each a small grammar rather than one sentence: a tight budget
  ("we're broke", "on a student budget", "the cheaper the better"), a budget that is no
  object ("money's no issue", "sky's the limit": the top level) and an intensified "not
  expensive" ("not super expensive": the moderate level, as the public "not too expensive").

An amount in a narrating clause ("we paid 40 bucks a head last time",
:mod:`trace_crs.baselines.reader_narration`) is no ceiling.  The level of an amount is the
public vocabulary's (:func:`trace_crs.kb.price.amount_level`, by POI type).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

from trace_crs.baselines.negation import phrase_pattern
from trace_crs.baselines.reader_narration import narrated
from trace_crs.kb.price import Mention, amount_level, amount_qualifiers, price_ceiling, price_mentions

PHRASES: dict[int, tuple[str, ...]] = {
    2: ("money is tight", "money's tight", "money is a bit tight", "cash is tight", "money is short", "cash-strapped"),
}
_LODGING = r"(?:hotels?|motels?|inns?|hostels?|rooms?|stays?|chains?|accommodations?|lodging)"
IDIOMS: dict[int, re.Pattern[str]] = {
    2: re.compile(
        r"\b(?:i'?m|i\s+am|we'?re|we\s+are|being|so|pretty|kinda|totally|flat|dead|a\s+bit|very|bit)\s+broke\b"
        r"(?!\s+(?:down|up|into|out|the|our|my)\b)"
        # not "tight/modest budget": the public list reads those, and skips a description of the
        # traveller ("a traveller on a tight budget here"), which a persona-only budget must stay
        r"|\b(?:student|backpacker|shoestring)\s+budget\b(?!\s+" + _LODGING + r")"
        r"|\bthe\s+cheaper\s+the\s+better\b|\bcheap(?:er|est)\s+(?:is|are)\s+better\b"
        r"|\bas\s+cheap(?:ly)?\s+as\s+(?:possible|we\s+can|it\s+gets)\b",
        re.I,
    ),
    3: re.compile(
        r"\b(?:not|nothing)\s+(?:super|very|overly|crazy|that|so|insanely|ridiculously|outrageously|hugely)\s+"
        r"(?:expensive|pricey|pricy|costly|spendy)\b",
        re.I,
    ),
    4: re.compile(
        r"\b(?:money|price|cost|costs|budget)(?:'?s|\s+is|\s+are)?\s+(?:no|not\s+an?)\s+(?:object|issue|problem|concern)\b"
        r"|\bsky(?:'?s|\s+is)\s+the\s+limit\b|\bwhatever\s+it\s+costs\b",
        re.I,
    ),
}
# A currency symbol or word: "£20", "20 quid", "15 euros" are read on the same bands as dollars
# (the nominal amount, no exchange rate); a range ("80-100 a night") is read by its upper end.
_CUR = r"[$£€]"
_NUMBER = rf"(?P<cur>{_CUR})?\s?(?P<lo>\d+(?:\.\d+)?\s?(?:-|–|to)\s?{_CUR}?)?(?P<n>\d+(?:\.\d+)?)"
_MONEY = r"(?P<money>\s*(?:bucks|dollars|usd|pounds|quid|gbp|euros?|eur|[$£€]))"
_PER = r"(?P<per>\s+(?:a|per|each|for\s+a)\s+(?:head|person|night|ticket|adult|plate)|\s*(?:pp|pppn|each|a\s+pop))"
_MAX = r"(?P<max>\s+(?:max|tops|or\s+less|at\s+most))"
# A bare number ("under fifty") is a budget only after a ceiling word (not "around 7", "about 20")
# and when no other unit follows ("under 30 minutes", "up to 4 people", "before 7:30").
_CEILING_WORDS = ("under", "below", "less than", "no more than", "not more than", "at most", "max", "maximum", "up to")
_OTHER_UNIT = re.compile(
    r"\s*(?:[:./-]\d|(?:minutes?|mins?|hours?|hrs?|miles?|mi|km|blocks?|feet|ft|meters?|people|persons|guests?|"
    r"kids?|children|adults|years?|yrs?|stars?|reviews?|am|pm|o'clock|percent|degrees?|seats?|of\s+us|nights|days)\b|%)",
    re.I,
)
# "n't" also without its apostrophe ("dont wanna spend over $40"), on the auxiliaries only
_NEG_OVER = r"(?:\b(?:not|no|nothing|never|cannot)|n't|\b(?:do|does|did|is|are|was|were|ca|could|would|should|wo)nt)\s+(?:\w+\s+){0,3}?(?:more\s+than|over|above)"


@cache
def _amounts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    quals = "|".join(re.escape(q).replace(r"\ ", r"\s+") for q in sorted(amount_qualifiers(), key=len, reverse=True))
    qualified = re.compile(
        rf"(?P<q>(?<![\w$£€])(?:{quals})|{_NEG_OVER})\s+(?:like\s+)?{_NUMBER}(?![\d.]){_MONEY}?{_PER}?{_MAX}?", re.I
    )
    bare = re.compile(rf"(?<![\w$£€-]){_NUMBER}(?![\d.]){_MONEY}?{_PER}?{_MAX}?", re.I)
    return qualified, bare


@lru_cache(maxsize=8192)
def _digits(text: str) -> str:
    """``text`` with numbers in words as digits ("under fifty" → "under 50"); memoised, since a
    turn's text recurs in every later turn's reading."""
    from text_to_num import alpha2digit

    # "under a hundred and fifty" comes out as "under a 150": the article goes with the words
    return re.sub(r"\b(?:a|an)\s+(?=\d)", "", str(alpha2digit(text, "en")), flags=re.I)


def extra_mentions(text: str, poi_type: str | None = None) -> list[Mention]:
    """The reader-only price mentions of ``text`` (already in digits), in order (module docstring)."""
    qualified, bare = _amounts()
    found: list[Mention] = []
    for m in qualified.finditer(text):
        explicit = m.group("cur") or m.group("money") or m.group("per")
        q = m.group("q")
        ceiling_word = " ".join(q.lower().split()) in _CEILING_WORDS or re.fullmatch(_NEG_OVER, q, re.I) is not None
        bare_ok = ceiling_word and not _OTHER_UNIT.match(text, m.end())
        if (explicit or bare_ok) and not narrated(text, m.start()):
            found.append(Mention(m.group(0), m.start(), m.end(), amount_level(float(m.group("n")), poi_type)))
    for m in bare.finditer(text):
        inside = any(s <= m.start() < e for _, s, e, *_ in found)
        money = m.group("cur") or m.group("money") or (m.group("lo") and m.group("per"))  # "80-100 a night"
        if money and (m.group("per") or m.group("max")) and not inside and not narrated(text, m.start()):
            found.append(Mention(m.group(0), m.start(), m.end(), amount_level(float(m.group("n")), poi_type)))
    for level, phrases in PHRASES.items():
        found += [Mention(m.group(0), m.start(), m.end(), level) for m in phrase_pattern(phrases).finditer(text)]
    for level, idiom in IDIOMS.items():
        found += [Mention(m.group(0), m.start(), m.end(), level) for m in idiom.finditer(text)]
    return sorted(found, key=lambda m: m.start)


@lru_cache(maxsize=8192)
def mentions(text: str, poi_type: str | None = None) -> tuple[Mention, ...]:
    """Every price mention of ``text`` (normalised): the public vocabulary's, and the
    reader-only ones that overlap none of them, in text order — all on the digit form (memoised:
    a turn's text recurs in every later turn's reading)."""
    text = _digits(text)
    public = price_mentions(text, poi_type)
    extra = [m for m in extra_mentions(text, poi_type) if not any(p.start < m.end and m.start < p.end for p in public)]
    return tuple(sorted(public + extra, key=lambda m: m.start))


def ceiling(texts: Iterable[str], poi_type: str | None = None) -> int | None:
    """The ceiling the texts state, by the public rule (:func:`trace_crs.kb.price.price_ceiling`:
    the last mention wins, class words only when nothing else is said) over :func:`mentions`."""
    return price_ceiling(texts, poi_type, mentions)
