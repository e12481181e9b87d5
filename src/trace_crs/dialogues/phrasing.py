"""Natural-language rendering of the simulated dialogues from the template banks in
``data/templates.yaml`` (paper §2.2).

A preference is stated the way a traveller would say it, not in the baselines' word list:
with probability ``1 − p_direct`` (``data/paraphrases.yaml``) the sentence is one of the
simulator's own paraphrases of the facet value, mostly indirect ("somewhere I can bring the
dog") and free of facet-lexicon keywords; otherwise a plain keyword frame of
``templates.yaml`` with a ``kb.lexicon`` keyword.  Prices are always named with words of the
public price vocabulary (``kb.price``), as real users name budgets with a small set of words.
The paraphrase bank is read by this module only: baselines and metrics never see it."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from trace_crs.dialogues.constraints import Constraint
from trace_crs.kb.facets import STYLES
from trace_crs.kb.lexicon import facet_lexicon


@lru_cache(maxsize=1)
def templates() -> dict[str, Any]:
    """The parsed ``data/templates.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.dialogues").joinpath("data/templates.yaml").read_text())


def choose(options: list[str], rng: np.random.Generator) -> str:
    """One option, uniformly."""
    return options[int(rng.integers(len(options)))]


@lru_cache(maxsize=1)
def paraphrases() -> dict[str, Any]:
    """The parsed ``data/paraphrases.yaml`` (the simulator's own phrasing bank)."""
    return yaml.safe_load(resources.files("trace_crs.dialogues").joinpath("data/paraphrases.yaml").read_text())


def keyword(facet: str, value: Any, rng: np.random.Generator) -> str:
    """A lexicon keyword expressing ``facet = value`` (price words from the template bank)."""
    if facet == "price_max":
        return choose(templates()["price_words"][int(value)], rng)
    words = facet_lexicon()[facet].get(str(value))
    if not words:
        raise ValueError(f"facet lexicon has no keywords for {facet}={value!r}")
    return choose(list(words), rng)


def pref_text(constraint: Constraint, poi_type: str, rng: np.random.Generator) -> str:
    """A statement of one constraint: a negated statement for ``avoid``, an either/or
    statement for ``either``; otherwise :func:`plain_text`, with probability ``p_correct``
    preceded by another value of the facet and its withdrawal ("… Actually, scratch that.")
    and with probability ``p_hedge`` hedged (", ideally.")."""
    facet, value = constraint
    bank = paraphrases()
    if facet == "avoid":
        return avoid_text(value, rng)
    if facet == "either":
        a, b = (keyword(f, v, rng) for f, v in value)
        text = choose(bank["either"], rng).format(a=a, b=b)
        return text[0].upper() + text[1:]
    text = plain_text(constraint, poi_type, rng)
    if rng.random() < bank["p_hedge"] and text.endswith(".") and not text.endswith("please."):
        text = text[:-1] + choose(bank["hedges"], rng)
    if facet in ("style", "noise", "ambience") and rng.random() < bank["p_correct"]:
        others = [v for v in (STYLES[poi_type] if facet == "style" else bank[facet]) if v != value]
        wrong = plain_text((facet, choose(others, rng)), poi_type, rng)
        text = f"{wrong} {choose(bank['corrections'], rng)} {text}"
    return text


def avoid_text(value: Constraint, rng: np.random.Generator) -> str:
    """A sentence saying the traveller does not want ``value`` (``data/paraphrases.yaml`` ``avoid``;
    a restaurant style with a keyword in an ``avoid_style`` frame)."""
    facet, v = value
    if facet == "style":
        text = choose(paraphrases()["avoid_style"], rng).format(kw=keyword(facet, v, rng))
        return text[0].upper() + text[1:]
    options = paraphrases()["avoid"].get(facet, {}).get(str(v))
    if not options:
        raise ValueError(f"the paraphrase bank has no negated sentence for {facet}={v!r}")
    return choose(options, rng)


def plain_text(constraint: Constraint, poi_type: str, rng: np.random.Generator) -> str:
    """One sentence stating a plain constraint (a paraphrase, or with probability ``p_direct``
    a keyword frame; prices always with a public price word)."""
    facet, value = constraint
    bank = templates()["pref"]
    if facet != "price_max" and rng.random() >= paraphrases()["p_direct"]:
        if facet == "anchor":
            return choose(paraphrases()["anchor"], rng).format(anchor=value["name"])
        return choose(paraphrases()[facet][str(value)], rng)
    if facet == "anchor":
        km = f"{value['max_km']:g}"
        return choose(bank["anchor"], rng).format(anchor=value["name"], km=km)
    frames = bank["style"][poi_type] if facet == "style" else bank["price" if facet == "price_max" else facet]
    text = choose(frames, rng).format(kw=keyword(facet, value, rng))
    return text[0].upper() + text[1:]


def prefs_text(constraints: list[Constraint], poi_type: str, rng: np.random.Generator) -> str:
    """Sentences stating several constraints, space-joined ("" for none)."""
    return " ".join(pref_text(c, poi_type, rng) for c in constraints)


def render(role: str, action: str, rng: np.random.Generator, **slots: Any) -> str:
    """A user or system sentence for ``action`` with its slots filled.  Empty slots are
    removed from the frame first (whitespace of the frame collapsed), so slot values such
    as verbatim quotes are never altered."""
    frame = choose(templates()[role][action], rng)
    for key, value in slots.items():
        if value == "":
            frame = frame.replace("{" + key + "}", "")
    return " ".join(frame.split()).format(**slots)


def evidence(quote: str, label: str, rng: np.random.Generator) -> str:
    """One evidence clause ``… "quote" [Rn].``"""
    return choose(templates()["system"]["evidence"], rng).format(quote=quote, label=label)
