"""How a table looks in the book: the one presentation layer (STYLE "Presentation").

Every table a notebook shows goes through :func:`table` (any frame) or :func:`comparison`
(a reported-vs-reproduced long frame, :mod:`trace_crs.report.compare`): numbers with at most 3
decimals, no index; baseline keys as the paper's labels, column ids as words; a column with one
value on every row lifted into the caption (``seed = 42``); "—" for a missing value, "not run"
for a reproduced cell we did not compute, "undefined" for one computed without a value (the
reason goes into the caption), "needs input" for one that waits for what the user must bring (an
API model, the official release; named in the caption); paper | ours | Δ under each paper column, split into
axes that each fit the text column (:func:`axes`); an interval as ``0.250 [0.18, 0.31]``, a cell
whose printed value lies outside our interval highlighted (class ``trace-deviates``).
The result is a :class:`Shown`: the Styler's table inside a ``div.trace-table-wrap`` (scrolls
sideways on a phone, first column sticky; book/_static/trace.css).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from trace_crs.baselines.registry import LABELS
from trace_crs.report.results import NEEDS as NEEDS_COLUMN  # the long frame's input-to-bring column
from trace_crs.report.results import UNDEFINED as UNDEFINED_COLUMN  # the long frame's reason column

MISSING = "—"
NOT_RUN = "not run"
UNDEFINED = "undefined"  # computed, and the metric has no value there (its reason goes under the table)
NEEDS_INPUT = "needs input"  # not computable offline: what the user must bring goes under the table
DELTA = "Δ"
TABLE_CLASS = "trace-table"
DEVIATES_CLASS = "trace-deviates"
# Column ids that hold baseline keys (their values are shown as labels).
KEY_COLUMNS = ("baseline",)
# Paper columns of one comparison (paper | ours | Δ each) that fit the book's 757 px text column
# beside the longest baseline label (measured in Chromium: tests/book/test_default_shape.py).
FIT_COLUMNS = 3


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def number(value: Any, digits: int = 3) -> str:
    """One cell as text: "—" for missing; integers as integers; floats with ``digits``
    decimals (the paper's precision; never more, the book's "≤ 3 decimals"), a non-zero value
    that would read as zero as "< 0.001" ("> -0.001" below zero); other values as ``str``."""
    if _missing(value):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        x = float(value) + 0.0  # -0.0 reads as 0.000
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        floor = 10.0**-digits
        if x != 0 and abs(x) < floor / 2:  # would print as 0.000: say how small, not zero
            return f"< {floor:.{digits}f}" if x > 0 else f"> -{floor:.{digits}f}"
        return f"{x:,.{digits}f}"
    return str(value)


def interval(
    estimate: float, low: float, high: float, sufficient: bool = True, n: int | None = None, digits: int = 3
) -> str:
    """``0.250 [0.18, 0.31]`` (bounds with one digit fewer); "0.333 (insufficient n)" when the
    interval rests on too few dialogues (or collapses to a point); ``n`` is appended only when
    given — a cell whose n differs from its row's (the row's n is shown once, column ``n``)."""
    if _missing(estimate):
        return MISSING
    suffix = f", n = {int(n)}" if n is not None and not _missing(n) else ""
    if not sufficient or _missing(low) or _missing(high):
        return f"{number(estimate, digits)} (insufficient n{suffix})"
    return f"{number(estimate, digits)} [{number(low, digits - 1)}, {number(high, digits - 1)}]" + (
        f" (n = {int(n)})" if n is not None and suffix else ""
    )


def header(name: Any) -> str:
    """A column id as a header: baseline keys as labels, ``snake_case`` as words."""
    text = str(name)
    if text in LABELS:
        return LABELS[text]
    return text.replace("_", " ") if "_" in text and " " not in text else text


@dataclass
class Shown:
    """A table ready for the page: ``styler`` (pandas Styler) and the ``data`` it shows."""

    styler: Styler
    data: pd.DataFrame
    lifted: dict[str, str] = field(default_factory=dict)
    fit: bool = False  # must fit the text column (class trace-fit; the browser test checks it)

    def _repr_html_(self) -> str:
        classes = "trace-table-wrap trace-fit" if self.fit else "trace-table-wrap"
        return f'<div class="{classes}">{self.styler.to_html()}</div>'

    def __repr__(self) -> str:
        return self.data.to_string(index=False)


def _caption(caption: str | None, lifted: Mapping[str, str]) -> str | None:
    constants = "; ".join(f"{k} = {v}" for k, v in lifted.items())
    parts = [p for p in (caption, constants) if p]
    return " — ".join(parts) if parts else None


def _flat(df: pd.DataFrame) -> pd.DataFrame:
    """Index levels become columns (unless it is a plain RangeIndex); keys become labels."""
    frame = df.copy()
    unnamed_positions = all(n is None for n in frame.index.names) and pd.api.types.is_integer_dtype(frame.index)
    frame = frame.reset_index(drop=unnamed_positions)  # row numbers (a filtered frame's) are not shown
    if "index" in frame.columns and not unnamed_positions:
        frame = frame.rename(columns={"index": ""})
    for col in KEY_COLUMNS:
        if col in frame.columns and not isinstance(frame.columns, pd.MultiIndex):
            if "Baseline" in frame.columns:
                frame = frame.drop(columns=col)
            else:
                frame[col] = frame[col].map(lambda k: LABELS.get(k, k) if isinstance(k, str) else k)
    return frame


def _is_count(name: Any) -> bool:
    text = str(name)
    return text == "n" or text.startswith(("n_", "n ")) or "count" in text


def _counts_as_integers(frame: pd.DataFrame) -> pd.DataFrame:
    """A count column stored as float (``n_clusters`` after a merge) is shown as integers."""
    if isinstance(frame.columns, pd.MultiIndex):
        return frame
    for col in frame.columns:
        values = frame[col]
        if _is_count(col) and pd.api.types.is_float_dtype(values) and (values.dropna() % 1 == 0).all():
            frame[col] = values.astype("Int64")
    return frame


def table(
    df: pd.DataFrame, caption: str | None = None, *, lift: bool = True, keep: Sequence[str] = (), digits: int = 3
) -> Shown:
    """Any frame for display: flat columns, no index, labels, constants in the caption,
    numbers via :func:`number`.  ``keep`` names columns never lifted; a frame whose
    ``attrs["lift"]`` lists columns (the interval tables: only ``n``) lifts only those."""
    frame = _counts_as_integers(_flat(df))
    flags = df.attrs.get("deviates")
    marks = None if flags is None else _flat(flags.astype(object)).set_axis(frame.columns, axis=1)
    lifted: dict[str, str] = {}
    if lift and len(frame) > 1 and not isinstance(frame.columns, pd.MultiIndex):
        for col in list(frame.columns[1:]):
            if col in keep or frame.shape[1] <= 2 or ("lift" in df.attrs and col not in df.attrs["lift"]):
                continue
            values = frame[col].map(lambda v: number(v, digits))
            if values.nunique() == 1:
                lifted[header(col)] = values.iloc[0]
                frame = frame.drop(columns=col)
                marks = None if marks is None else marks.drop(columns=col)
    if isinstance(frame.columns, pd.MultiIndex):
        frame.columns = pd.MultiIndex.from_tuples([tuple(header(c) for c in t) for t in frame.columns])
    else:
        frame.columns = [header(c) for c in frame.columns]
    styler = frame.style.format(lambda v: number(v, digits)).hide(axis="index")
    styler = styler.set_table_attributes(f'class="{TABLE_CLASS}"')
    if marks is not None:
        marks = marks.map(lambda v: DEVIATES_CLASS if v is True else "")
        styler = styler.set_td_classes(marks.set_axis(frame.columns, axis=1).set_axis(frame.index))
    text = _caption(caption, lifted)
    if text:
        styler = styler.set_caption(html.escape(text, quote=False))
    return Shown(styler, frame, lifted)


def _ours_text(paper: Any, ours: Any, undefined: str = "", needs: str = "") -> str:
    if not _missing(ours):
        return number(ours)
    if undefined or needs:
        return UNDEFINED if undefined else NEEDS_INPUT
    return NOT_RUN if not _missing(paper) else MISSING


def _reason(row: pd.Series | None, column: str) -> str:
    why = row.get(column, "") if row is not None else ""
    return why if isinstance(why, str) else ""


def comparison(long: pd.DataFrame, caption: str | None = None, columns: Sequence[str] | None = None) -> Shown:
    """A reported-vs-reproduced long frame (``Baseline, column, paper, ours, diff`` and
    optionally ``ci_low, ci_high``) as one row per baseline and ``paper | ours | Δ`` under
    each paper column (``columns``: which, in that order; default all, first-seen order)."""
    cols = list(columns) if columns is not None else list(dict.fromkeys(long["column"]))
    part = long[long["column"].isin(cols)]
    rows = list(dict.fromkeys(part["Baseline"]))
    cells: dict[tuple[str, str], list[str]] = {(c, s): [] for c in cols for s in ("paper", "ours", DELTA)}
    flags = pd.DataFrame(False, index=range(len(rows)), columns=pd.MultiIndex.from_tuples(list(cells)))
    indexed = part.drop_duplicates(["Baseline", "column"]).set_index(["Baseline", "column"])
    reasons: dict[tuple[str, str], list[str]] = {}  # (marker, why) -> the columns with a cell marked for that reason
    for i, row in enumerate(rows):
        for col in cols:
            r = indexed.loc[(row, col)] if (row, col) in indexed.index else None
            paper, ours = (r["paper"], r["ours"]) if r is not None else (np.nan, np.nan)
            why, needs = _reason(r, UNDEFINED_COLUMN), _reason(r, NEEDS_COLUMN)
            if _missing(ours) and (why or needs):
                marked = (UNDEFINED, why) if why else (NEEDS_INPUT, needs)
                if col not in reasons.setdefault(marked, []):
                    reasons[marked].append(col)
            cells[(col, "paper")].append(number(paper))
            cells[(col, "ours")].append(_ours_text(paper, ours, why, needs))
            cells[(col, DELTA)].append(number(ours - paper) if not (_missing(ours) or _missing(paper)) else MISSING)
            if r is not None and "ci_low" in r.index and not (_missing(paper) or _missing(r["ci_low"])):
                flags.loc[i, (col, DELTA)] = not (r["ci_low"] <= paper <= r["ci_high"])
    frame = pd.DataFrame(cells)
    frame.insert(0, ("", "Baseline"), rows)
    flags.insert(0, ("", "Baseline"), False)
    frame.columns = pd.MultiIndex.from_tuples(list(frame.columns))
    flags.columns = frame.columns
    styler = frame.style.hide(axis="index").set_table_attributes(f'class="{TABLE_CLASS}"')
    styler = styler.set_td_classes(flags.replace({True: DEVIATES_CLASS, False: ""}).set_axis(frame.index))
    notes = [f"{marker} ({', '.join(map(str, cols))}): {why}" for (marker, why), cols in reasons.items()]
    caption = " ".join(filter(None, [caption, *(n + "." for n in notes)]))
    if caption:
        styler = styler.set_caption(html.escape(caption, quote=False))
    return Shown(styler, frame, fit=True)


def split(
    df: pd.DataFrame, groups: Mapping[str, Sequence[str]], caption: str = "", first: Sequence[str] = ("n",)
) -> Stack:
    """:func:`table` of ``df`` once per group of its columns (``groups``: title -> columns),
    each with the row labels (index) and the ``first`` columns, as :func:`axes` does for a
    comparison; highlights (``attrs["deviates"]``) and lifting rules carry over."""
    tables = []
    for title, cols in groups.items():
        keep = [c for c in (*first, *cols) if c in df.columns]
        if not any(c in df.columns for c in cols):
            continue
        part = df[keep]
        part.attrs = {k: (v[keep] if k == "deviates" else v) for k, v in df.attrs.items()}
        tables.append(table(part, f"{caption}{': ' if caption else ''}{title}"))
    return Stack(tables)


def by(df: pd.DataFrame, column: str, caption: str = "") -> Stack:
    """One :func:`table` per value of ``column`` (first-seen order), captioned with it: long text
    shared by many rows (a deviation's cause) is read once, in full, not cut in every row."""
    if column not in df.columns:
        return Stack([table(df, caption or None)])
    return Stack(
        [
            table(part.drop(columns=column), f"{caption}{': ' if caption else ''}{value}")
            for value, part in df.groupby(column, sort=False, dropna=False)
        ]
    )


def chunks(columns: Sequence[str], size: int = FIT_COLUMNS) -> dict[str, list[str]]:
    """Consecutive groups of at most ``size`` paper columns, each titled by its columns: the
    axes of a table the paper does not group (each then fits the column, :func:`axes`)."""
    cols = list(dict.fromkeys(columns))
    return {", ".join(cols[i : i + size]): cols[i : i + size] for i in range(0, len(cols), size)}


def axes(long: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None = None, caption: str = "") -> Stack:
    """:func:`comparison` once per axis (``groups``: axis title -> paper columns; default
    :func:`chunks` of the columns in printed order), so that a wide table reads as several that
    each fit the column; axes with no column are skipped."""
    groups, present = chunks(long["column"]) if groups is None else groups, set(long["column"])
    return Stack(
        [
            comparison(long, f"{caption}{': ' if caption else ''}{title}", [c for c in cols if c in present])
            for title, cols in groups.items()
            if any(c in present for c in cols)
        ]
    )


@dataclass
class Stack:
    """Several :class:`Shown` tables displayed as one output."""

    tables: list[Shown]

    def _repr_html_(self) -> str:
        return "\n".join(t._repr_html_() for t in self.tables)

    def __repr__(self) -> str:
        return "\n\n".join(repr(t) for t in self.tables)


@dataclass
class Folded:
    """A block shown collapsed (``<details>``), opened with one click: the provenance tables."""

    summary: str
    body: Any

    def _repr_html_(self) -> str:
        return (
            f'<details class="trace-folded"><summary>{html.escape(self.summary, quote=False)}</summary>\n'
            f"{self.body._repr_html_()}\n</details>"
        )

    def __repr__(self) -> str:
        return f"{self.summary}\n{self.body!r}"


def folded(body: Any, summary: str = "Provenance of these numbers (click to open)") -> Folded:
    """``body`` (a :class:`Shown` or anything with ``_repr_html_``) collapsed under ``summary``."""
    return Folded(summary, body)
