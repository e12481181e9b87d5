"""The judged-transcript record (what ``trace-crs judge core`` writes) and the human-label file.

Judged record, one JSON line per transcript::

    {"dialogue_id", "system", "judge", "mode", "aggregator", "prompt_version",
     "factors": {12 names: 0-4 | null}, "rationales": {...}, "failures": {name: error},
     "core_avg": float | null, "debate": {"score": 0-100 | null, "rounds", "unanimous", "chat": [...],
     "error"} | null, "usage": {"calls", "prompt_tokens", "completion_tokens", "cost_usd", "model_s"},
     "attempts": {"attempts"|"failed_attempts"|"truncated": {name: int}}, "key": "<request signature>"}

Human labels (any file keyed by ``dialogue_id``; several annotators per dialogue when each
line names its ``annotator`` — one line per (dialogue, annotator))::

    {"dialogue_id", "factors": {name: 0-4, ...}?, "overall": number?, "system": str?, "annotator": str?}

Both readers raise :class:`~trace_crs.errors.DataError` naming file, line and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.errors import DataError
from trace_crs.judge.aggregate import core_avg
from trace_crs.judge.core import FactorResult, attempt_counts
from trace_crs.judge.debate import DebateResult
from trace_crs.judge.factors import FACTORS, SCORES
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
    }


def _factor_ratings(rec: Mapping[str, Any], where: tuple[str, int], required: bool) -> dict[str, float]:
    got = rec.get("factors")
    if got is None and not required:
        return {}
    if not isinstance(got, dict):
        raise DataError("expected a mapping factor -> rating", file=where[0], line=where[1], field="factors")
    out = {}
    for name, value in got.items():
        if name not in FACTORS:
            raise DataError(
                f"unknown factor; expected one of {list(FACTORS)}",
                file=where[0],
                line=where[1],
                field=f"factors.{name}",
            )
        if value is not None and (isinstance(value, bool) or value not in SCORES):
            raise DataError(
                f"rating {value!r} is not an integer 0-4 (or null)",
                file=where[0],
                line=where[1],
                field=f"factors.{name}",
            )
        out[name] = float("nan") if value is None else float(value)
    return out


def read_ratings(path: str | Path, human: bool = False) -> pd.DataFrame:
    """One row per dialogue: ``dialogue_id, system`` + the 12 factor columns (NaN = unrated) +
    ``overall`` (human: the ``overall`` label; judged: ``core_avg``) and, for judged files,
    ``debate`` and the usage columns; human files add ``annotator`` (None when unnamed).  A repeated
    dialogue id is an error, except in a human file whose lines name distinct annotators."""
    rows, seen = [], set()
    for line, rec in iter_jsonl(path):
        where = (str(path), line)
        if not isinstance(rec, dict) or not isinstance(rec.get("dialogue_id"), str):
            raise DataError(
                "expected an object with a string dialogue_id", file=where[0], line=line, field="dialogue_id"
            )
        annotator = rec.get("annotator") if human else None
        if annotator is not None and (not isinstance(annotator, str) or not annotator):
            raise DataError("expected a non-empty string", file=where[0], line=line, field="annotator")
        if (rec["dialogue_id"], annotator) in seen:
            who = f" by annotator {annotator!r}" if annotator else " (name each line's 'annotator' for several)"
            raise DataError(f"duplicate {rec['dialogue_id']!r}{who}", file=where[0], line=line, field="dialogue_id")
        seen.add((rec["dialogue_id"], annotator))
        row: dict[str, Any] = {"dialogue_id": rec["dialogue_id"], "system": rec.get("system")}
        if human:
            row["annotator"] = annotator
        row.update({n: float("nan") for n in FACTORS} | _factor_ratings(rec, where, required=not human))
        if human:
            overall = rec.get("overall")
            if overall is not None and (isinstance(overall, bool) or not isinstance(overall, (int, float))):
                raise DataError(f"expected a number, got {overall!r}", file=where[0], line=line, field="overall")
            row["overall"] = float("nan") if overall is None else float(overall)
        else:
            row["overall"] = float("nan") if rec.get("core_avg") is None else float(rec["core_avg"])
            score = (rec.get("debate") or {}).get("score")
            row["debate"] = float("nan") if score is None else float(score)
            row["mode"] = rec.get("mode")
            for key in ("recall", "persuasiveness"):  # Table 7's conventional rows (judge/run.py); absent: NaN
                value = rec.get(key)
                row[key] = (
                    float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("nan")
                )
            row.update({k: float((rec.get("usage") or {}).get(k, 0) or 0) for k in USAGE_KEYS})
        rows.append(row)
    if not rows:
        raise DataError("no records (empty file)", file=str(path))
    return pd.DataFrame(rows)
