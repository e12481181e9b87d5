"""Which domain a judge speaks in (CoRE seed 001 rates movie CRSs; Trace rates travel ones).

The domain of a transcript is its ``domain`` field (``restaurant`` / ``hotel`` / ``attraction``
and ``travel`` mean travel; ``movie`` / ``movies`` / ``redial`` … mean movies; see
``judge/data/domains.yaml``), unless ``--domain`` overrides it; no field means travel (Trace's
own setting).  An unknown domain is an error naming the known ones, not a silent fallback.

The rubrics, the judge's instruction and the debate are written once, for travel;
:func:`localise` rewrites their travel wording for another domain (the ordered ``replace`` pairs
of ``domains.yaml``) and :func:`check_localised` refuses a text in which a travel word survives,
so a movie transcript's prompts never speak of travellers.  :func:`judging` sets the domain for
the duration of one transcript's judging; :func:`trace_crs.judge.factors.guideline` and the
debate read it (:func:`current`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

_CURRENT: ContextVar[str | None] = ContextVar("judge_domain", default=None)


@lru_cache(maxsize=1)
def domain_file() -> dict[str, Any]:
    """The parsed ``domains.yaml``."""
    return yaml.safe_load(resources.files("trace_crs.judge").joinpath("data/domains.yaml").read_text())


def known() -> tuple[str, ...]:
    return tuple(domain_file()["domains"])


def resolve(value: str | None) -> str:
    """The judge domain of a transcript ``domain`` value or a ``--domain`` flag (module docstring)."""
    if value is None or not str(value).strip():
        return str(domain_file()["default"])
    key = str(value).strip().lower()
    for name, spec in domain_file()["domains"].items():
        if key == name or key in spec["aliases"]:
            return str(name)
    aliases = sorted(a for spec in domain_file()["domains"].values() for a in spec["aliases"])
    raise ValueError(f"unknown judge domain {value!r}; known: {', '.join(known())} (aliases: {', '.join(aliases)})")


def _capitalised(replacement: str, match: re.Match[str]) -> str:
    return replacement[:1].upper() + replacement[1:] if match.group(0)[:1].isupper() else replacement


def localise(text: str, domain: str | None = None) -> str:
    """``text`` (travel wording) rewritten for ``domain`` (default: the current one)."""
    name = resolve(domain if domain is not None else current())
    for pattern, replacement in domain_file()["domains"][name]["replace"]:
        text = re.sub(pattern, lambda m, r=replacement: _capitalised(r, m), text, flags=re.IGNORECASE | re.DOTALL)  # type: ignore[misc]  # r=replacement binds the loop value
    return text


def check_localised(text: str, domain: str) -> str:
    """``text`` unchanged, or ``ValueError`` naming a forbidden word that survived localisation."""
    for word in domain_file()["domains"][resolve(domain)]["forbid"]:
        hit = re.search(word, text, flags=re.IGNORECASE)
        if hit:
            raise ValueError(
                f"domains.yaml: {domain!r} text still says {hit.group(0)!r}: …{text[max(0, hit.start() - 60):hit.end() + 20]}…"
            )
    return text


def expert(domain: str | None = None) -> str | None:
    """The debate's Domain Expert description for ``domain`` (``None``: debate.yaml's own)."""
    return domain_file()["domains"][resolve(domain if domain is not None else current())].get("expert")


def current() -> str:
    """The domain being judged (travel outside :func:`judging`)."""
    return resolve(_CURRENT.get())


@contextmanager
def judging(domain: str | None) -> Iterator[str]:
    """Judge in ``domain`` (resolved) until the block ends."""
    token = _CURRENT.set(resolve(domain))
    try:
        yield resolve(domain)
    finally:
        _CURRENT.reset(token)
