"""The judged-transcript record (what ``trace-crs judge core`` writes) and the human-label file.

Judged record, one JSON line per transcript::

    {"dialogue_id", "system", "judge", "mode", "aggregator", "prompt_version",
     "factors": {12 names: 0-4 | null}, "rationales": {...}, "failures": {name: error},
     "core_avg": float | null, "debate": {"score": 0-100 | null, "rounds", "unanimous", "chat": [...],
     "error"} | null, "usage": {"calls", "prompt_tokens", "completion_tokens", "cost_usd", "model_s"},
     "attempts": {"attempts"|"failed_attempts"|"truncated": {name: int}}, "key": "<request signature>",
     "scores": {name: {"greedy", "expected", "distribution", "mass"} | null}}   (logprob mode only)

Human labels (any file keyed by ``dialogue_id``; several annotators per dialogue when each
line names its ``annotator`` — one line per (dialogue, annotator))::

    {"dialogue_id", "factors": {name: 0-4, ...}?, "overall": number?, "system": str?, "annotator": str?}

Both readers raise :class:`~trace_crs.errors.DataError` naming file, line and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from trace_crs.errors import DataError
from trace_crs.judge.aggregate import core_avg
from trace_crs.judge.core import FactorResult, attempt_counts
from trace_crs.judge.debate import DebateResult
from trace_crs.judge.factors import FACTORS, SCORES
from trace_crs.judge.transcript import checked_id, validate_record
from trace_crs.kb.store import iter_jsonl

USAGE_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cost_usd", "model_s")


def judged_record(
    dialogue_id: str,
    system: str | None,
    results: Mapping[str, FactorResult],
    debate: DebateResult | None,
    meta: Mapping[str, Any],
    usage: Mapping[str, float],
) -> dict[str, Any]:
    """The output line of one transcript (module docstring); ``meta`` adds judge / mode / key."""
    return {
        "dialogue_id": dialogue_id,
        "system": system,
        **meta,
        "factors": {n: results[n].rating for n in FACTORS},
        "rationales": {n: results[n].rationale for n in FACTORS},
        "failures": {n: results[n].error for n in FACTORS if results[n].rating is None},
        "core_avg": core_avg(results),
        "debate": debate.as_dict() if debate is not None else None,
        "usage": {k: usage.get(k, 0) for k in USAGE_KEYS},
        "attempts": attempt_counts(results),
        **({"scores": {n: results[n].scores for n in FACTORS}} if any(r.scores for r in results.values()) else {}),
    }


Rating = Annotated[int | float, AfterValidator(lambda v: _in(v, SCORES, "an integer 0-4 (or null)"))]


def _in(value: float, allowed: tuple[int, ...], what: str) -> float:
    if value not in allowed:
        raise ValueError(f"rating {value!r} is not {what}")
    return value


def _factors(value: dict[str, float | None] | None) -> dict[str, float | None] | None:
    for name in value or {}:
        if name not in FACTORS:
            raise ValueError(f"unknown factor {name!r}; expected one of {list(FACTORS)}")
    return value


class _Labels(BaseModel):
    """What both files share; other keys (rationales, annotator, notes …) are carried, not read."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)
    dialogue_id: Annotated[str, AfterValidator(checked_id)]
    system: str | None = None
    factors: Annotated[dict[str, Rating | None] | None, AfterValidator(_factors)] = None


class HumanLabel(_Labels):
    """A human label line: ratings 0-4 per factor, ``overall`` on CoRE's 0-100 scale (§3.3).
    Factor ratings may also sit at the top level (``{"dialogue_id", "novelty": 3, …}``, the flat
    layout of a spreadsheet export): they are read as ``factors``; both layouts in one line is an
    error (which would win is not for the reader to guess)."""

    overall: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _flat_factors(cls, rec: Any) -> Any:
        if not isinstance(rec, dict) or not (flat := [k for k in rec if k in FACTORS]):
            return rec
        if "factors" in rec:
            raise ValueError(f"factor ratings both at the top level ({', '.join(flat)}) and under 'factors'")
        return {**{k: v for k, v in rec.items() if k not in flat}, "factors": {k: rec[k] for k in flat}}


class _Debate(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    score: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None


JudgeRating = Annotated[float, Field(ge=0, le=4, allow_inf_nan=False)]  # logprob mode: an expected score


class JudgedLine(_Labels):
    """A judged record as read back: a factor rating is 0-4 (an integer, or in logprob mode with
    the expected rating a number in [0, 4]), CoRE-Avg their mean, the debate score 0-100, recall a
    fraction, usage non-negative."""

    factors: Annotated[dict[str, JudgeRating | None], AfterValidator(_factors)]
    core_avg: Annotated[float, Field(ge=0, le=4, allow_inf_nan=False)] | None = None
    debate: _Debate | None = None
    recall: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None = None
    persuasiveness: Annotated[float, Field(ge=0, le=2, allow_inf_nan=False)] | None = None  # judge/persuasive.py
    mode: str | None = None
    usage: dict[str, Annotated[float, Field(ge=0, allow_inf_nan=False)] | None] = Field(default_factory=dict)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def check_annotator(
    seen: set[tuple[str, Any]],
    named: dict[bool, int],
    dialogue_id: str,
    annotator: Any,
    file: str,
    line: int,
    field: str = "annotator",
    id_field: str = "dialogue_id",
) -> None:
    """One line's (dialogue, annotator) key: the annotator a non-empty string or None, the key not
    seen before, and either every line of the file naming its annotator or none (``seen`` and
    ``named`` carry the file's state)."""
    if annotator is not None and (not isinstance(annotator, str) or not annotator):
        raise DataError("expected a non-empty string", file=file, line=line, field=field)
    if (dialogue_id, annotator) in seen:
        who = f" by annotator {annotator!r}" if annotator else f" (name each line's {field!r} for several)"
        raise DataError(f"duplicate {dialogue_id!r}{who}", file=file, line=line, field=id_field)
    seen.add((dialogue_id, annotator))
    named.setdefault(annotator is not None, line)
    if len(named) == 2:  # per-annotator tables would leave the unnamed lines out unseen
        raise DataError(
            f"named on line {named[True]}, unnamed on line {named[False]}: name every line's annotator or none",
            file=file,
            line=line,
            field=field,
        )


def read_ratings(path: str | Path, human: bool = False) -> pd.DataFrame:
    """One row per dialogue: ``dialogue_id, system`` + the 12 factor columns (NaN = unrated) +
    ``overall`` (human: the ``overall`` label; judged: ``core_avg``) and, for judged files,
    ``debate`` and the usage columns; human files add ``annotator`` (None when unnamed).  Each line
    is validated (:class:`HumanLabel` / :class:`JudgedLine`); a bad value or a repeated dialogue id
    (except in a human file whose lines name distinct annotators) raises :class:`DataError` naming
    file, line and field."""
    if Path(path).suffix.lower() == ".csv":  # a spreadsheet export: say what is read instead of "malformed JSON"
        raise DataError(
            "a CSV file: ratings are read as JSON lines, one object per line (module docstring)", file=str(path)
        )
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, Any]] = set()
    named: dict[bool, int] = {}  # human files: first line with / without an annotator
    for line, rec in iter_jsonl(path):
        r: Any = validate_record(HumanLabel if human else JudgedLine, rec, str(path), line)
        annotator = getattr(r, "annotator", None) if human else None
        check_annotator(seen, named, r.dialogue_id, annotator, str(path), line)
        row: dict[str, Any] = {"dialogue_id": r.dialogue_id, "system": r.system}
        if human:
            row["annotator"] = annotator
        row.update({n: _nan((r.factors or {}).get(n)) for n in FACTORS})
        if human:
            row["overall"] = _nan(r.overall)
        else:
            row["overall"] = _nan(r.core_avg)
            row["debate"] = _nan(r.debate.score if r.debate else None)
            row["mode"] = r.mode
            row["recall"] = _nan(r.recall)  # Table 7's conventional rows (judge/run.py); absent: NaN
            row["persuasiveness"] = _nan(r.persuasiveness)
            row.update({k: float(r.usage.get(k, 0) or 0) for k in USAGE_KEYS})
        rows.append(row)
    if not rows:
        raise DataError("no records (empty file)", file=str(path))
    return pd.DataFrame(rows)


def coverage(pred: pd.DataFrame, human: pd.DataFrame) -> dict[str, Any]:
    """Which judged and labelled dialogues meet: counts and the first ids on one side only.
    Agreement is computed on the dialogues in both; the rest is reported here, not dropped
    unseen."""
    p, h = set(pred["dialogue_id"]), set(human["dialogue_id"])
    return {
        "n_judged": len(p),
        "n_labelled": len(h),
        "n_both": len(p & h),
        "labelled_not_judged": sorted(h - p)[:10],
        "judged_not_labelled": sorted(p - h)[:10],
    }


def read_judged(path: str | Path) -> pd.DataFrame:
    """:func:`read_ratings` of a judged file with its ``overall`` named ``core_avg`` (CoRE-Avg,
    :func:`trace_crs.judge.aggregate.core_avg`), the name the CoRE report tables use."""
    return read_ratings(path).rename(columns={"overall": "core_avg"})
