"""Persona archetypes, travel contexts, 38-per-type pools and the randomisation layer
(paper Appendix I).  All phrasing lives in ``data/personas.yaml``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from trace_crs.kb.schema import POI_TYPES

POOL_SIZE = 38  # archetypes per POI type (Appendix I)


@dataclass(frozen=True)
class Persona:
    """One sampled persona: archetype, its rendered description and a travel context."""

    persona_type: str
    text: str
    context: str
    about: str


@lru_cache(maxsize=1)
def persona_data() -> dict[str, Any]:
    """The parsed ``data/personas.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.dialogues").joinpath("data/personas.yaml").read_text())


def preference_prior(persona_type: str) -> frozenset[tuple[str, str]]:
    """The ``(facet, value)`` pairs a persona type tends to want (``preference_prior`` of
    ``data/personas.yaml``; value ``"*"`` = any value of the facet); empty when not listed."""
    entries = persona_data().get("preference_prior", {}).get(persona_type, [])
    return frozenset(tuple(e.split(":", 1)) for e in entries)


def persona_dependent(scenario: dict[str, Any]) -> bool:
    """Whether a dialogue's hidden preferences include something its persona type's prior
    favours (:func:`preference_prior`; ``anchor:*`` matches any anchor) — the slice on which
    knowing the persona can help (the persona slice of Table 3, ``report.t03_corpus.persona_slice``);
    False for a scenario without hidden preferences."""
    prior = preference_prior(str(scenario.get("persona_type") or ""))
    hidden = scenario.get("hidden_preferences") or {}
    for facet, value in hidden.items():
        for v in value if isinstance(value, list) else [value]:
            if v is not None and ((facet, str(v)) in prior or (facet, "*") in prior):
                return True
    return False


def archetypes() -> tuple[str, ...]:
    """The 47 archetype names of Appendix I, sorted alphabetically."""
    return tuple(sorted(persona_data()["archetypes"]))


def type_pool(poi_type: str) -> tuple[str, ...]:
    """The archetypes used for one POI type (47 minus that type's exclusions), sorted."""
    if poi_type not in POI_TYPES:
        raise ValueError(f"unknown POI type {poi_type!r}; expected one of {POI_TYPES}")
    excluded = set(persona_data()["excluded"][poi_type])
    return tuple(a for a in archetypes() if a not in excluded)


def sample_persona(persona_type: str, rng: np.random.Generator) -> Persona:
    """Render one persona of ``persona_type``: name, age, description and, with probability
    ``modifier_p`` (0.3), a detail modifier such as "who is vegetarian"; plus a context."""
    data = persona_data()
    if persona_type not in data["archetypes"]:
        raise ValueError(f"unknown persona archetype {persona_type!r} (see Appendix I; {len(archetypes())} known)")
    spec = data["archetypes"][persona_type]
    name = data["names"][int(rng.integers(len(data["names"])))]
    lo, hi = data["age_range"]
    age = int(rng.integers(lo, hi + 1))
    about = spec["about"]
    text = f"{name}, {age}, {about}"
    if rng.random() < data["modifier_p"]:
        text += " " + data["modifiers"][int(rng.integers(len(data["modifiers"])))]
    context = spec["contexts"][int(rng.integers(len(spec["contexts"])))]
    return Persona(persona_type=persona_type, text=text, context=context, about=about)


def scenario_cycle(index: int, cities: list[str]) -> tuple[str, str, str]:
    """``(persona_type, city, poi_type)`` of the ``index``-th dialogue: types rotate fastest,
    then cities, then each type's 38-archetype pool, so that every archetype meets every
    city × type combination in turn (Appendix I)."""
    if not cities:
        raise ValueError("no cities to cycle through (empty KB?)")
    poi_type = POI_TYPES[index % len(POI_TYPES)]
    city = cities[(index // len(POI_TYPES)) % len(cities)]
    pool = type_pool(poi_type)
    persona_type = pool[(index // (len(POI_TYPES) * len(cities))) % len(pool)]
    return persona_type, city, poi_type
