"""Glue a table's facts for the notebook prose (myst-nb ``glue``).

Numbers are glued as values (cite them with ``{glue:text}`key:.3f```); strings as
Markdown (cite them with ``{glue:md}`key```), so labels render without quotes.  Every float is
also glued as ``<key>_md``, Markdown text via :func:`trace_crs.report.present.number` that
reads "not computed" for NaN: prose citing a number that can be missing on a profile
(a judge not run, one baseline) cites ``{glue:md}`key_md``` and never prints "nan".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from IPython.display import Markdown
from myst_nb import glue

from trace_crs.report import present

NOT_COMPUTED = "not computed"


def glue_facts(prefix: str, facts: Mapping[str, Any]) -> None:
    """Glue every fact as ``<prefix>_<key>`` (hidden).  Returns nothing, so the call can end a
    notebook cell without printing the key list onto the page."""
    for key, value in facts.items():
        if isinstance(value, np.generic):  # numpy 2 reprs read np.float64(…), which {glue:text} cannot format
            value = value.item()
        glue(f"{prefix}_{key}", Markdown(value) if isinstance(value, str) else value, display=False)
        if isinstance(value, float):
            glue(f"{prefix}_{key}_md", Markdown(as_text(value)), display=False)


def as_text(value: float) -> str:
    """A number for a sentence: :func:`present.number`, or "not computed" when it is NaN."""
    return NOT_COMPUTED if value != value else present.number(value)


def glue_sentences(prefix: str, frame: Any, key: str = "finding", text: str = "sentence") -> None:
    """Glue each row's ``text`` column as Markdown under ``<prefix>_<row key>``."""
    glue_facts(prefix, dict(zip(frame[key], frame[text], strict=False)))
