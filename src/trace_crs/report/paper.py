"""The paper's printed numbers, shipped as package data in ``report/paper/*.csv``.

The CSVs are copies of the transcription in the project's ``paper-reported`` folder
(published facts; see ``paper/README.md`` for what was lost in text extraction).  Values
are read as printed strings so trailing zeros survive; :func:`numeric` converts a column
to floats (empty cell -> NaN).  Nothing outside the installed package is read.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import pandas as pd

PACKAGE = "trace_crs.report"
FOLDER = "paper"


def available() -> list[str]:
    """Stems of the shipped paper tables (``table5_headline``, …), sorted."""
    folder = resources.files(PACKAGE) / FOLDER
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".csv"))


def table(name: str) -> pd.DataFrame:
    """The paper table ``name`` (file stem) with every cell as the printed string."""
    resource = resources.files(PACKAGE) / FOLDER / f"{name}.csv"
    if not resource.is_file():
        raise KeyError(f"no paper table '{name}'; available: {available()}")
    with resource.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, dtype=str, keep_default_na=False)


@cache
def header(name: str) -> tuple[str, ...]:
    """The column headers of the paper table ``name``, as printed."""
    return tuple(table(name).columns)


def numeric(values: pd.Series) -> pd.Series:
    """Printed cells as floats; empty (lost or ``—``) cells become NaN."""
    return pd.to_numeric(values.replace("", None), errors="coerce").astype(float)


def claim(section: str, text: str) -> str:
    """The printed value of a prose claim in ``headline_claims`` (exact section and claim)."""
    claims = table("headline_claims")
    hit = claims[(claims["section"] == section) & (claims["claim"] == text)]
    if len(hit) != 1:
        raise KeyError(f"claim not found exactly once: {section!r} / {text!r}")
    return str(hit["value"].iloc[0])
