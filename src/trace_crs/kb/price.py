"""The one public price vocabulary (paper §3 "Price Alignment", Appendix J): price phrases in
user text → a price ceiling in $ signs (POI.price 1–4), read by the price-alignment metric
(:mod:`trace_crs.metrics.practical`) and by every baseline that reads a budget from the
conversation (:mod:`trace_crs.baselines.preferences`).  The map is ``data/price_words.yaml``.

**Canonical mapping** (the paper's: "budget/cheap/affordable $–$$; moderate $–$$$;
luxury/upscale $–$$$$"):

* ceiling 2 — budget, cheap, affordable, inexpensive, low-cost, wallet-friendly, on a
  shoestring, tight budget, "won't break the bank", … ;
* ceiling 3 — moderate, moderately priced, mid-range, mid-priced, reasonably priced, fairly
  priced, not too expensive, … ;
* ceiling 4 — luxury, luxurious, upscale, high-end, splurge, money is no object, … ;
* ``$``–``$$$$`` written as symbols → their count;
* a dollar amount after a qualifier ("under $20", "no more than $150 a night") → the level
  whose band holds it (``dollar_bands``: Yelp's per-person restaurant ranges ≤ $10 / $30 / $60;
  our bands for hotels per night and attraction admission), by the dialogue's POI type.

**Reading rules.**  Case-insensitive whole-phrase matches, longest first ("not too expensive"
is one phrase), scanned over the texts in order; the *last* phrase wins, since refinements
override ("cheap … actually, mid-range").  A phrase names no ceiling when it is

* negated — a negator (``not``, ``no``, ``nothing``, ``never``, ``without``, "…n't") within
  four words before it in its clause ("it doesn't need to be cheap", "nothing upscale");
* another facet's word — "a budget hotel" / "budget kind of place" (a hotel style), "moderate
  noise" (a noise level), "my budget" (the noun), "reasonable distance";
* a description of the traveller, not of the place asked for — a person noun earlier in the
  clause and no request word in between ("I'm a traveller on a tight budget", "half of a
  couple who like to splurge"; but "a student looking for something cheap" counts).

Class words of level 4 (luxury, upscale, high-end) name a kind of place and a price only by
implication: they set the ceiling only when the texts hold no other price phrase, so "cheap
… the atmosphere should be upscale" keeps ceiling 2.  Relative wishes ("cheaper than that")
have no ceiling in words and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

import yaml

DEFAULT_POI_TYPE = "restaurant"
# How a response names a POI's price level (POI.price 1-4) in words: the template baselines'
# rating-meta sentence (baselines.responses, App. L); each word reads back as a ceiling at or
# above its level (data/price_words.yaml).
LEVEL_WORDS: dict[int, str] = {1: "cheap", 2: "affordable", 3: "moderate", 4: "upscale"}
_WORD = re.compile(r"[\w'’-]+")


class Mention(NamedTuple):
    """One price phrase: its text, span, ceiling (1–4) and whether it is a class word."""

    phrase: str
    start: int
    end: int
    level: int
    descriptive: bool = False


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return yaml.safe_load(resources.files("trace_crs.kb").joinpath("data/price_words.yaml").read_text())


def _norm(phrase: str) -> str:
    return " ".join(phrase.lower().replace("’", "'").split())


@lru_cache(maxsize=1)
def price_words() -> dict[str, int]:
    """Every phrase of the vocabulary → its ceiling (1–4)."""
    return {_norm(p): int(level) for level, phrases in _data()["ceilings"].items() for p in phrases}


def _alt(words: Iterable[str]) -> str:
    return "|".join(
        re.escape(_norm(w)).replace(r"\ ", r"\s+").replace("'", "['’]")
        for w in sorted(set(words), key=len, reverse=True)
    )


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    data = _data()
    after, before = data.get("not_price_after", {}), data.get("not_price_before", {})
    parts = []
    for p in sorted(price_words(), key=len, reverse=True):
        body = _alt([p])
        body = "".join(rf"(?<!\b{re.escape(w)} )" for w in before.get(p, [])) + body  # fixed-width each
        if p in after:
            body += rf"(?!\s+(?:{_alt(after[p])})\b)"
        parts.append(body)
    words = re.compile(r"(?<![\w$-])(" + "|".join(parts) + r")(?![\w-])", re.IGNORECASE)
    symbols = re.compile(
        r"(?<![\w$])((?:(?:" + _alt(data["amount_qualifiers"]) + r")\s+)?)(\${1,4})(?![\w$])(?!\s?\d)", re.IGNORECASE
    )
    amounts = re.compile(
        r"(?<![\w$])(" + _alt(data["amount_qualifiers"]) + r")\s+\$\s?(\d+(?:\.\d+)?)(?![\d])", re.IGNORECASE
    )
    return words, symbols, amounts


def _amount_level(amount: float, poi_type: str | None) -> int:
    bands = _data()["dollar_bands"].get(poi_type or DEFAULT_POI_TYPE, _data()["dollar_bands"][DEFAULT_POI_TYPE])
    return 1 + sum(b < amount for b in bands)


def amount_level(amount: float, poi_type: str | None = None) -> int:
    """The price level (1–4) whose dollar band holds ``amount`` for ``poi_type`` (``dollar_bands``)."""
    return _amount_level(amount, poi_type)


def amount_qualifiers() -> tuple[str, ...]:
    """The words before a dollar amount that make it a ceiling ("under", "no more than", …)."""
    return tuple(_data()["amount_qualifiers"])


def _clause_words(text: str, start: int) -> list[str]:
    """The lower-cased words of ``text`` before ``start`` back to the clause break."""
    head = re.split(r"[.,;:!?()\"“”]", text[:start])[-1]
    words = [w.lower().replace("’", "'") for w in _WORD.findall(head)]
    breaks = set(_data()["clause_breaks"])
    cut = max((i for i, w in enumerate(words) if w in breaks), default=-1)
    return words[cut + 1 :]


def _skipped(text: str, start: int) -> bool:
    """Negated, or part of a description of the traveller (module docstring)."""
    data, words = _data(), _clause_words(text, start)
    window = words[-int(data["negation_window"]) :]
    if any(w in data["negators"] or w.endswith("n't") for w in window):
        return True
    persons = [i for i, w in enumerate(words) if w in data["person_nouns"]]
    return bool(persons) and not set(words[persons[-1] + 1 :]) & set(data["request_words"])


def price_mentions(text: str, poi_type: str | None = None) -> list[Mention]:
    """Every price phrase of ``text`` that names a ceiling, in order (skipped ones left out)."""
    words, symbols, amounts = _patterns()
    descriptive = {_norm(w) for w in _data()["descriptive"]}
    found = [
        Mention(m.group(1), m.start(1), m.end(1), price_words()[_norm(m.group(1))], _norm(m.group(1)) in descriptive)
        for m in words.finditer(text)
    ]
    for m in symbols.finditer(text):
        n = len(m.group(2))
        found.append(Mention(m.group(0).strip(), m.start(), m.end(), max(1, n - 1) if m.group(1) else n))
    found += [
        Mention(m.group(0), m.start(), m.end(), _amount_level(float(m.group(2)), poi_type))
        for m in amounts.finditer(text)
    ]
    return sorted((m for m in found if not _skipped(text, m.start)), key=lambda m: m.start)


def price_ceiling(
    texts: Iterable[str],
    poi_type: str | None = None,
    mentions: Callable[[str, str | None], Iterable[Mention]] | None = None,
) -> int | None:
    """The ceiling the texts state (module docstring: last phrase wins, class words only
    when nothing else is said), or None; ``mentions`` reads a text's price mentions
    (default :func:`price_mentions`; the baselines' reader adds phrases of its own)."""
    read = price_mentions if mentions is None else mentions
    strong = weak = None
    for text in texts:
        for m in read(text, poi_type):
            if m.descriptive:
                weak = m.level
            else:
                strong = m.level
    return strong if strong is not None else weak


def price_ceiling_recall(dialogues: Iterable[dict[str, Any]]) -> dict[str, float]:
    """How well the metric reads budgets: over dialogues whose generator stated a price
    (``scenario.hidden_preferences.price_max`` set), the share where :func:`price_ceiling` of
    the user turns equals it (``price_ceiling_recall``); over the others, the share where it
    reads a ceiling anyway (``false_ceiling_rate``).  NaN where a group is empty."""
    priced = hits = unpriced = false = 0
    for d in dialogues:
        stated = (d["scenario"].get("hidden_preferences") or {}).get("price_max")
        read = price_ceiling(t["text"] for t in d["turns"] if t["role"] == "user")
        if stated is None:
            unpriced += 1
            false += read is not None
        else:
            priced += 1
            hits += read == stated
    nan = float("nan")
    return {
        "price_dialogues": priced,
        "price_ceiling_recall": hits / priced if priced else nan,
        "no_price_dialogues": unpriced,
        "false_ceiling_rate": false / unpriced if unpriced else nan,
    }
