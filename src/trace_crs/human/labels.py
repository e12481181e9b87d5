"""Human label records of the two annotation tasks (seed 000 App. K.1) and their JSONL reader.

One JSON object per line, one line per (annotator, item):

* Task 1 (rate a system response): ``{"task": "t1", "annotator", "item_id", "dialogue_id",
  "baseline" (optional: filled from the sampler's key file), "quotes": [one of CITATION_LABELS per
  quoted phrase, in order], "errors": [ERROR_CATEGORIES; "no_errors" only alone],
  "informativeness": 1–5, "naturalness": 1–5, "comment": str}``.
* Task 2 (blind expert recommendation): ``{"task": "t2", "annotator", "dialogue_id",
  "pois": [1–3 candidate POI ids], "sentence": str}``.

Both may carry ``items_sha256`` (optional): the SHA-256 of the items file the labels were given
on, as ``human export`` reads it from the labels database; ``human sample`` writes the same into
every key line, and ``human agree`` refuses labels and a key of different items files.

A line that breaks the contract is a :class:`~trace_crs.errors.DataError` naming file, line and
field; nothing is dropped silently.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from trace_crs.errors import DataError
from trace_crs.kb.store import iter_jsonl

#: Part A of Task 1, in order of decreasing support (App. K.1).
CITATION_LABELS: tuple[str, ...] = ("supported", "partial", "not_supported")
#: Part B of Task 1: the 8-way checklist; "no_errors" is exclusive (App. K.1, K.2).
ERROR_CATEGORIES: tuple[str, ...] = (
    "fabrication",
    "wrong_poi",
    "irrelevant_citation",
    "too_vague",
    "missing_citation",
    "exaggeration",
    "factual_error",
    "no_errors",
)
#: what the annotators read for each category (App. K.1)
ERROR_TEXT = {
    "no_errors": "No errors",
    "fabrication": "Fabricated claims",
    "wrong_poi": "Wrong POI",
    "irrelevant_citation": "Irrelevant citation",
    "too_vague": "Too vague",
    "missing_citation": "Missing citation",
    "exaggeration": "Exaggeration",
    "factual_error": "Factual error",
}
Likert = Annotated[int, Field(ge=1, le=5)]


def _trimmed(value: str) -> str:
    if value != value.strip():  # "A1 " and "A1" would count as two annotators (a spreadsheet's stray space)
        raise ValueError(f"{value!r} has leading or trailing spaces")
    return value


Ident = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_trimmed)]
# the SHA-256 of the items file the label was given on (``human export`` fills it from the labels
# database; ``human sample`` writes the same into the key): labels and key of one sample match
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class Task1Label(BaseModel):
    """One annotator's Task 1 label of one item (a system response)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    task: Literal["t1"]
    annotator: Ident
    item_id: Ident
    dialogue_id: Ident
    baseline: Ident | None = None
    quotes: list[Literal["supported", "partial", "not_supported"]]
    errors: list[Literal[ERROR_CATEGORIES]]  # type: ignore[valid-type]
    informativeness: Likert
    naturalness: Likert
    comment: str = Field(default="", max_length=10_000)
    items_sha256: Sha256 | None = None

    @field_validator("errors")
    @classmethod
    def _exclusive(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("check at least one box ('no_errors' when the response is fine)")
        if "no_errors" in v and len(v) > 1:
            raise ValueError("'no_errors' excludes every other category")
        if len(set(v)) != len(v):
            raise ValueError("a category is listed twice")
        return v


class Task2Label(BaseModel):
    """One annotator's blind recommendation for one dialogue."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    task: Literal["t2"]
    annotator: Ident
    dialogue_id: Ident
    pois: Annotated[list[Ident], Field(min_length=1, max_length=3)]
    sentence: str = Field(default="", max_length=10_000)
    items_sha256: Sha256 | None = None


_MODELS: dict[str, type[Task1Label] | type[Task2Label]] = {"t1": Task1Label, "t2": Task2Label}


def _where(err: ValidationError) -> str:
    first = err.errors()[0]
    return ".".join(str(p) for p in first["loc"]) or "record"


def _text(path: Path) -> str:
    """A CSV file's text: UTF-8, a leading byte-order mark (spreadsheet exports write one) dropped;
    bytes that are not UTF-8 are a :class:`DataError` naming their line."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"not UTF-8 ({exc.reason}); save the file as UTF-8", file=str(path), line=line) from None


LIST_FIELDS = ("quotes", "errors", "pois")  # joined by ';' in a CSV cell (``human export --csv``)
# OWASP's CSV-injection rule: a cell a spreadsheet would read as a formula starts with one of these;
# the export prefixes it (and a cell that starts with the prefix itself) with "'", the reader strips it
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CELL_PREFIX = "'"


def csv_cell(value: object) -> object:
    """A value as ``human export --csv`` writes it: text that a spreadsheet would run as a
    formula (or that starts with the escape itself) gets a leading ``'``; other values unchanged."""
    if isinstance(value, str) and value.startswith((*FORMULA_START, CELL_PREFIX)):
        return CELL_PREFIX + value
    return value


def _uncell(cell: str) -> str:
    """The text of a cell :func:`csv_cell` wrote (one escaping ``'`` removed)."""
    return cell[1:] if cell.startswith(CELL_PREFIX) and cell[1:].startswith((*FORMULA_START, CELL_PREFIX)) else cell


def _csv_rows(path: Path, text: str) -> Iterator[tuple[int, object]]:
    """Rows of the CSV ``human export --csv`` writes: one column per field, lists joined by
    ``;``, formula-like text escaped by :func:`csv_cell`; an empty cell is a field left out (an
    empty list for a list field of the row's task)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if "task" not in (reader.fieldnames or []):
        raise DataError(f"no 'task' column (header: {reader.fieldnames})", file=str(path), line=1, field="task")
    for row in reader:
        line_no = reader.line_num
        if None in row:
            raise DataError("more cells than header columns", file=str(path), line=line_no)
        model = _MODELS.get(str(row.get("task")))
        fields = model.model_fields if model is not None else {}
        rec: dict[str, object] = {}
        for key, raw in row.items():
            cell = _uncell(raw) if isinstance(raw, str) else raw
            if key in LIST_FIELDS and key in fields:
                rec[key] = [x.strip() for x in (cell or "").split(";") if x.strip()]
            elif cell not in (None, ""):
                rec[key] = cell
        yield line_no, rec


def read_labels(path: str | Path) -> tuple[list[Task1Label], list[Task2Label]]:
    """Task 1 and Task 2 labels of a JSONL file, or of a ``.csv`` file in the layout of ``human
    export --csv``; UTF-8 with or without a byte-order mark, any line ends.  A duplicate
    (annotator, item) is an error."""
    path = Path(path)
    t1: list[Task1Label] = []
    t2: list[Task2Label] = []
    seen: set[tuple[str, str, str]] = set()
    # JSON lines: the project's one reader (byte-order mark, bad bytes and bad JSON at their line)
    rows = _csv_rows(path, _text(path)) if path.suffix.lower() == ".csv" else iter_jsonl(path)
    for line_no, raw in rows:
        if not isinstance(raw, dict):
            raise DataError("a label is a JSON object", file=str(path), line=line_no)
        model = _MODELS.get(str(raw.get("task")))
        if model is None:
            raise DataError("must be 't1' or 't2'", file=str(path), line=line_no, field="task")
        try:
            rec: Task1Label | Task2Label = model.model_validate(raw)
        except ValidationError as exc:
            msg = exc.errors()[0]["msg"]
            raise DataError(msg, file=str(path), line=line_no, field=_where(exc)) from None
        unit = rec.item_id if isinstance(rec, Task1Label) else rec.dialogue_id
        key = (rec.task, rec.annotator, unit)
        if key in seen:
            raise DataError(f"second label of {unit!r} by {rec.annotator!r}", file=str(path), line=line_no)
        seen.add(key)
        if isinstance(rec, Task1Label):
            t1.append(rec)
        else:
            t2.append(rec)
    return t1, t2


def task1_frame(labels: list[Task1Label], key: pd.DataFrame | None = None, source: str = "labels") -> pd.DataFrame:
    """One row per (annotator, item): ids, baseline, Likert scores, ``quotes`` and ``errors`` lists.

    ``key`` (``item_id, baseline`` and optional metric columns, the sampler's key file) fills or
    checks ``baseline`` and adds the item's automated scores."""
    df = pd.DataFrame([r.model_dump(exclude={"items_sha256"}) for r in labels])
    if df.empty:
        raise DataError("no Task 1 labels", file=source)
    if key is not None:
        missing = sorted(set(df["item_id"]) - set(key["item_id"]))
        if missing:
            raise DataError(f"item(s) {missing[:5]} not in the key file", file=source, field="item_id")
        df = df.drop(columns="baseline").merge(key, on="item_id", how="left", suffixes=("", "_key"))
        if "dialogue_id_key" in df:
            if (df["dialogue_id"] != df["dialogue_id_key"]).any():
                raise DataError("dialogue_id disagrees with the key file", file=source, field="dialogue_id")
            df = df.drop(columns="dialogue_id_key")
    if df["baseline"].isna().any():
        raise DataError("labels without 'baseline' need the sampler's key file", file=source, field="baseline")
    return df


def task2_frame(labels: list[Task2Label]) -> pd.DataFrame:
    """One row per (annotator, dialogue): ``annotator, dialogue_id, pois, sentence``."""
    return pd.DataFrame(
        [r.model_dump() for r in labels], columns=["task", "annotator", "dialogue_id", "pois", "sentence"]
    )


MAX_TEXT = 10_000


def check_value(item: dict[str, Any], field: str, value: Any) -> Any:
    """``value`` if it is valid for ``field`` of ``item``, else ValueError (the API answers 422)."""
    if item["task"] == "t1":
        if field.startswith("quote."):
            idx = field[6:]
            if not re.fullmatch(r"0|[1-9][0-9]*", idx) or int(idx) >= len(item.get("quotes", [])):
                raise ValueError(f"no quote {idx!r} in this item")
            if value not in CITATION_LABELS:
                raise ValueError(f"a quote label is one of {CITATION_LABELS}")
            return value
        if field == "errors":
            if (
                not isinstance(value, list)
                or not all(isinstance(v, str) for v in value)
                or any(v not in ERROR_CATEGORIES for v in value)
                or len(set(value)) != len(value)
            ):
                raise ValueError(f"errors: a list of distinct {ERROR_CATEGORIES}")
            if "no_errors" in value and len(value) > 1:
                raise ValueError("'no_errors' excludes every other category")
            return sorted(value, key=ERROR_CATEGORIES.index)
        if field in ("informativeness", "naturalness"):
            if isinstance(value, bool) or value not in (1, 2, 3, 4, 5):
                raise ValueError(f"{field}: an integer 1-5")
            return int(value)
        if field == "comment":
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise ValueError(f"comment: text up to {MAX_TEXT} characters")
            return value
    else:
        if field == "pois":
            ids = {c["poi_id"] for c in item.get("candidates", [])}
            if (
                not isinstance(value, list)
                or len(value) > 3
                or not all(isinstance(v, str) for v in value)  # a list inside was a 500 (unhashable)
                or len(set(value)) != len(value)
                or any(v not in ids for v in value)
            ):
                raise ValueError("pois: up to 3 distinct candidates of this item")
            return value
        if field == "sentence":
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise ValueError(f"sentence: text up to {MAX_TEXT} characters")
            return value
    raise ValueError(f"unknown field {field!r} for a {item['task']} item")
