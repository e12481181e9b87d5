"""The facet-free body of a synthetic review (paper §2.1, Appendix D): visit narrative,
dishes / rooms / exhibits, staff, timing, comparison and advice sentences composed from the
templates and slot banks of ``data/review_grammar.yaml``.

Each POI gets a :class:`Voice` drawn once — its name, neighbourhood, city, 3 signature items
with a modifier and 2 named staff members — so its reviews talk about *that* POI.  Every
composed sentence is checked with :func:`facet_hits` and re-drawn if it names any facet value
or price (a slot combination or a POI name such as "Quiet Oak Grill" can): facet mentions come
only from the facet sentences of :mod:`trace_crs.kb.review_writer`, at the calibrated rates.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from trace_crs.kb.lexicon import facet_lexicon, find_facets
from trace_crs.kb.price import price_words

SECTIONS = ("narrative", "item", "staff", "timing", "comparison", "advice")
SECTION_WEIGHTS = (0.26, 0.26, 0.14, 0.12, 0.1, 0.12)
MAX_TRIES = 12  # re-draws of a sentence that names a facet or repeats
PREFER_NEW_TRIES = 3  # draws of a body sentence spent looking for one new to the KB


@lru_cache(maxsize=1)
def grammar() -> dict[str, Any]:
    """The parsed ``data/review_grammar.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/review_grammar.yaml").read_text())


def pick(rng: np.random.Generator, seq: Sequence[Any]) -> Any:
    """One element of ``seq`` drawn uniformly with ``rng`` (``rng.integers``: the POI draws of
    ``kb.synthetic`` stay what they were)."""
    return seq[int(rng.integers(len(seq)))]


def draw(rng: np.random.Generator, seq: Sequence[Any]) -> Any:
    """One element of ``seq`` drawn uniformly with ``rng.random`` (faster; review text only)."""
    return seq[int(rng.random() * len(seq))]


_TOKEN = re.compile(r"[\w-]+")


@lru_cache(maxsize=1)
def _keyword_grams() -> tuple[frozenset[str], frozenset[str], int]:
    """Facet keywords as space-joined ``[\\w-]+`` token runs, price words' first tokens, and the
    longest keyword in tokens: the vocabulary of the :func:`facet_hits` pre-filter."""
    words = {w.lower() for values in facet_lexicon().values() for ws in values.values() for w in ws}
    grams = frozenset(" ".join(_TOKEN.findall(w)) for w in words)
    first = frozenset(_TOKEN.findall(w)[0] for w in price_words() if _TOKEN.findall(w))
    return grams, first, max(len(g.split()) for g in grams)


@lru_cache(maxsize=1 << 18)
def facet_hits(text: str) -> frozenset[tuple[str, str]]:
    """Every ``(facet, value)`` that ``text`` names by a lexicon keyword or price phrase.  A
    token n-gram pre-filter (a superset of the lexicon's whole-word matches; ``&`` and ``$``
    always pass) skips the exact matchers of ``kb.lexicon`` / ``kb.price`` for most sentences."""
    grams, first, longest = _keyword_grams()
    tokens = _TOKEN.findall(text.lower())
    out: set[tuple[str, str]] = set()
    if "$" in text or not first.isdisjoint(tokens):
        out |= {("price", v) for v, _, _ in find_facets(text, "price")}
    if "&" in text or any(
        " ".join(tokens[i : i + k]) in grams for k in range(1, longest + 1) for i in range(len(tokens) - k + 1)
    ):
        out |= {(f, v) for f in facet_lexicon() for v, _, _ in find_facets(text, f)}
    return frozenset(out)


def reserved(sentence: str) -> str:
    """The key under which a *quotable* sentence is kept in a KB-wide ``used`` set: a body
    sentence may repeat a used one, never a reserved one (a quote must stay with its POI)."""
    return "\x00" + sentence


@dataclass(frozen=True)
class Voice:
    """What a POI's reviews keep coming back to, drawn once per POI."""

    name: str
    hood: str
    city: str
    poi_type: str
    items: tuple[str, ...]
    modifier: str
    staff: tuple[tuple[str, str], ...]  # (role, first name)


def draw_voice(
    rng: np.random.Generator,
    name: str,
    hood: str,
    city: str,
    poi_type: str,
    style: str | None,
    first_names: Sequence[str],
) -> Voice:
    """The :class:`Voice` of one POI: 3 signature items, a modifier and 2 staff members."""
    bank = grammar()["items"]
    pool = bank[poi_type][style] if poi_type == "restaurant" and style in bank["restaurant"] else bank[poi_type]
    if isinstance(pool, dict):  # a restaurant without a known style: any style's dishes
        pool = sorted({i for items in pool.values() for i in items})
    items = tuple(pool[i] for i in rng.choice(len(pool), size=min(3, len(pool)), replace=False))
    roles = grammar()["slots"]["role"][poi_type]
    staff = tuple((roles[i], pick(rng, first_names)) for i in rng.choice(len(roles), size=2, replace=False))
    return Voice(
        name=name,
        hood=hood,
        city=city,
        poi_type=poi_type,
        items=items,
        modifier=pick(rng, grammar()["items"]["modifier"]),
        staff=staff,
    )


class _Slots(dict):
    """Slot values for one sentence; a slot not yet drawn is drawn from its bank on first use."""

    def __init__(self, rng: np.random.Generator, poi_type: str, values: dict[str, str]):
        super().__init__(values)
        self.rng, self.poi_type = rng, poi_type

    def __missing__(self, slot: str) -> str:
        bank = grammar()["slots"][slot]
        value = draw(self.rng, bank[self.poi_type] if isinstance(bank, dict) else bank)
        value = value.format_map(self) if "{" in value else value  # "most places in {hood}"
        self[slot] = value
        return value


def fill(rng: np.random.Generator, template: str, voice: Voice, **given: str) -> str:
    """``template`` with every ``{slot}`` filled from ``given``, the voice or the slot banks
    (slot values may hold slots themselves, e.g. "most places in {hood}")."""
    n = len(voice.items)
    i = int(rng.random() * n)
    role, staff = voice.staff[int(rng.random() * len(voice.staff))]
    values = {
        "name": voice.name,
        "hood": voice.hood,
        "city": voice.city,
        "item": voice.items[i],
        "item2": voice.items[(i + 1 + int(rng.random() * (n - 1))) % n] if n > 1 else voice.items[0],
        "staff": staff,
        "role": role,
        "role_cap": role[0].upper() + role[1:],
        "modifier": voice.modifier,
        **given,
    }
    text = template.format_map(_Slots(rng, voice.poi_type, values))
    return text[0].upper() + text[1:]


def templates(section: str, poi_type: str, mood: str) -> list[str]:
    """Templates of one section for a POI type and sentiment (type-specific, else ``any``)."""
    by_type = grammar()["templates"][section]
    by_mood = by_type[poi_type] if poi_type in by_type else by_type["any"]
    return list(by_mood.get(mood, by_mood.get("any", [])))


def body_sentence(
    rng: np.random.Generator,
    voice: Voice,
    section: str,
    mood: str,
    used: Collection[str],
    local: Collection[str] = (),
    strict: bool = False,
) -> str | None:
    """A facet-free sentence of ``section``, not in ``local`` and preferably not in ``used``
    (re-drawn up to ``MAX_TRIES`` times; with ``strict`` a sentence in ``used`` is refused;
    ``None`` if no draw qualifies)."""
    options = templates(section, voice.poi_type, mood)
    fallback = None
    for attempt in range(MAX_TRIES):
        text = fill(rng, draw(rng, options), voice)
        if text in local or facet_hits(text) or reserved(text) in used:
            continue
        if text not in used:
            return text
        fallback = fallback or text
        if not strict and attempt + 1 >= PREFER_NEW_TRIES:
            break
    return None if strict else fallback
