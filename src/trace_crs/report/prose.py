"""Glue a table's facts for the notebook prose (myst-nb ``glue``).

Numbers are glued as values (cite them with ``{glue:text}`key:.3f```); strings as
Markdown (cite them with ``{glue:md}`key```), so labels render without quotes.
"""
from __future__ import annotations

from typing import Any, Mapping

from IPython.display import Markdown
from myst_nb import glue


def glue_facts(prefix: str, facts: Mapping[str, Any]) -> list[str]:
    """Glue every fact as ``<prefix>_<key>`` (hidden); return the glued keys."""
    keys = []
    for key, value in facts.items():
        name = f"{prefix}_{key}"
        glue(name, Markdown(value) if isinstance(value, str) else value, display=False)
        keys.append(name)
    return keys


def glue_sentences(prefix: str, frame: Any, key: str = "finding", text: str = "sentence") -> list[str]:
    """Glue each row's ``text`` column as Markdown under ``<prefix>_<row key>``."""
    return glue_facts(prefix, dict(zip(frame[key], frame[text])))
