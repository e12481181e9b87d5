"""Human labels in another study's layout, read through a declared mapping (``judge agree
--human-map``).

Public human-labelled CRS sets do not use CoRE's twelve factors on 0–4 and ``overall`` on 0–100
(CoRE §3.3): CRSArena-Eval rates assistant turns (relevance 0–3, interestingness 0–2) and
dialogues (understanding, task completion, interest arousal 0–2, efficiency 0–1, overall 0–4);
other studies use 1–5 Likert or like/dislike, one line per annotator.  A mapping (YAML,
:class:`LabelMap`) says which of the file's label names is which CoRE factor or ``overall``, on
which scale, at which level, and which names are ignored:

* a value is checked against its declared scale ``[lo, hi]`` (an integer if ``ordinal``; a
  ``values`` table first turns words such as ``like``/``dislike`` into numbers); it is moved
  linearly onto 0–4 (a factor) or 0–100 (``overall``) only when the entry says ``rescale: true``,
  otherwise it is kept as given (correlations are unaffected by a linear map);
* turn-level labels are averaged over the dialogue's labelled turns (``turn_aggregation: mean``,
  the one rule offered, stated in the output);
* quadratic-weighted kappa needs both sides on CoRE's five categories 0–4: :func:`qwk_reasons`
  names every mapped factor for which that does not hold (another scale, not rescaled onto five
  integers, or a turn mean), and the agreement tables report its QWK as NaN with that reason;
  rank correlations are always computed;
* a label name the mapping neither maps nor ignores is an error naming file, line and field;
  ignored names are counted in the output (:func:`read_mapped`'s report) — nothing is dropped
  unseen.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trace_crs.errors import DataError, UsageError
from trace_crs.judge.factors import FACTORS, SCORES
from trace_crs.judge.label_file import iter_records
from trace_crs.judge.records import check_annotator

TARGET_RANGE = {"factor": (0.0, 4.0), "overall": (0.0, 100.0)}  # CoRE §3.3: factors 0–4, overall 0–100


class LabelSpec(BaseModel):
    """One label of the file: the CoRE name it stands for and its own scale."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    to: str
    level: Literal["dialogue", "turn"] = "dialogue"
    lo: float
    hi: float
    ordinal: bool = True
    rescale: bool = False
    values: dict[str, float] | None = None  # words (or "true"/"false") to numbers, before the scale check
    note: str | None = None  # why this label is this factor (a judgement, stated where it is made)

    @model_validator(mode="after")
    def _check(self) -> LabelSpec:
        if self.to != "overall" and self.to not in FACTORS:
            raise ValueError(f"'to: {self.to}' is neither 'overall' nor a CoRE factor {list(FACTORS)}")
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise ValueError(f"the scale needs finite lo < hi, got lo={self.lo}, hi={self.hi}")
        if self.ordinal and not (float(self.lo).is_integer() and float(self.hi).is_integer()):
            raise ValueError("an ordinal scale needs integer lo and hi")
        return self

    def mapped(self, value: float) -> float:
        """``value`` on CoRE's range when ``rescale``, else as given."""
        if not self.rescale:
            return value
        a, b = TARGET_RANGE["overall" if self.to == "overall" else "factor"]
        return a + (value - self.lo) * (b - a) / (self.hi - self.lo)


class LabelMap(BaseModel):
    """A mapping file (the module docstring; ``judge/data/label_maps/crsarena_eval.yaml`` is one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    source: str | None = None
    id: str = "dialogue_id"
    system: str | None = None
    system_pattern: str | None = (
        None  # or the system read off the id: the regex's first group (CRSArena's "barcor_redial_…")
    )
    annotator: str | None = None
    dialogue_labels: str | None = None  # the key holding the dialogue-level labels; None: the record's own keys
    turns: str | None = None  # the key holding the list of turns
    turn_labels: str | None = None  # the key of each turn holding its labels
    turn_aggregation: Literal["mean"] = "mean"
    # a repeated id: an error, or (a layout such as AB-ReDial's, one unnamed row per annotator)
    # another annotator's label, numbered in file order
    repeated_ids: Literal["error", "unnamed_annotators"] = "error"
    labels: dict[str, LabelSpec]
    ignore: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> LabelMap:
        targets = Counter(s.to for s in self.labels.values())
        if twice := [t for t, n in targets.items() if n > 1]:
            raise ValueError(f"several labels map to {twice}: which one to compare is not for the reader to guess")
        if self.repeated_ids == "unnamed_annotators" and self.annotator:
            raise ValueError(
                "'repeated_ids: unnamed_annotators' and an 'annotator' field: the file names its annotators"
            )
        if self.system_pattern is not None:
            if self.system:
                raise ValueError("'system' and 'system_pattern': say where the system is once")
            try:
                if re.compile(self.system_pattern).groups != 1:
                    raise ValueError("'system_pattern' needs exactly one group (the system)")
            except re.error as exc:
                raise ValueError(f"'system_pattern' is not a regular expression: {exc}") from None
        if both := sorted(set(self.labels) & set(self.ignore)):
            raise ValueError(f"labels both mapped and ignored: {both}")
        if any(s.level == "turn" for s in self.labels.values()) and not (self.turns and self.turn_labels):
            raise ValueError("turn-level labels need 'turns' and 'turn_labels' (where each turn's labels sit)")
        return self


def load_map(path: str | Path) -> LabelMap:
    """The mapping file as a :class:`LabelMap`; a bad file is a :class:`UsageError` naming the field."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--human-map {p}: file not found")
    try:
        return LabelMap.model_validate(yaml.safe_load(p.read_text(encoding="utf-8")))
    except yaml.YAMLError as exc:
        raise UsageError(f"--human-map {p}: not YAML ({exc})") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "<file>"
        raise UsageError(f"--human-map {p}: field {where!r}: {err['msg'].removeprefix('Value error, ')}") from None


def qwk_reasons(mapping: LabelMap) -> dict[str, str]:
    """Factor → why its QWK is not defined against CoRE's five categories 0–4 (absent: defined)."""
    out = {}
    for name, s in mapping.labels.items():
        if s.to == "overall":
            continue
        cats = sorted({s.mapped(float(v)) for v in range(int(s.lo), int(s.hi) + 1)}) if s.ordinal else None
        if s.level == "turn":
            out[s.to] = f"{name!r} is a mean of turn labels, not one of five categories"
        elif cats is None:
            out[s.to] = f"{name!r} is not ordinal"
        elif cats != [float(c) for c in SCORES]:
            shown = ", ".join(f"{c:g}" for c in cats)
            how = "after rescaling" if s.rescale else "(not rescaled)"
            out[s.to] = f"{name!r} on {s.lo:g}-{s.hi:g} gives categories {{{shown}}} {how}, not CoRE's 0-4"
    return out


def _value(spec: LabelSpec, raw: Any, file: str, line: int, field: str) -> float:
    """One label value checked against its scale (module docstring), on CoRE's range if rescaled."""
    if raw is None:
        return math.nan
    key = str(raw).lower() if isinstance(raw, bool) else raw
    if spec.values is not None and isinstance(key, str):
        if key not in spec.values:
            raise DataError(f"{raw!r} is not one of {sorted(spec.values)}", file=file, line=line, field=field)
        raw = spec.values[key]
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise DataError(
            f"expected a number on {spec.lo:g}-{spec.hi:g}, got {raw!r:.40}", file=file, line=line, field=field
        )
    if not spec.lo <= raw <= spec.hi or (spec.ordinal and not float(raw).is_integer()):
        what = "an integer" if spec.ordinal else "a number"
        raise DataError(f"{raw!r} is not {what} on {spec.lo:g}-{spec.hi:g}", file=file, line=line, field=field)
    return spec.mapped(float(raw))


def _labels(rec: dict, key: str | None, reserved: set[str], file: str, line: int, field: str) -> dict[str, Any]:
    if key is None:
        return {k: v for k, v in rec.items() if k not in reserved}
    got = rec.get(key)
    if got is None:
        return {}
    if not isinstance(got, dict):
        raise DataError("expected an object of labels", file=file, line=line, field=field)
    return got


def _read_labels(
    m: LabelMap, labels: dict[str, Any], level: str, where: str, file: str, line: int, seen: Counter
) -> dict[str, float]:
    """The mapped values of one label object; unknown names are errors, ignored ones counted."""
    out = {}
    for name, raw in labels.items():
        field = f"{where}.{name}" if where else name
        if name in m.ignore:
            seen[f"ignored:{name}"] += 1
            continue
        spec = m.labels.get(name)
        if spec is None:
            raise DataError(
                "a label the mapping neither maps nor ignores (add it to 'labels' or 'ignore')",
                file=file,
                line=line,
                field=field,
            )
        if spec.level != level:
            raise DataError(
                f"declared {spec.level}-level in the mapping, found {level}-level", file=file, line=line, field=field
            )
        seen[f"read:{name}"] += 1
        out[name] = _value(spec, raw, file, line, field)
    return out


def read_mapped(path: str | Path, m: LabelMap) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The frame :func:`~trace_crs.judge.records.read_ratings` gives for a human file (one row per
    dialogue and annotator: ``dialogue_id, system, annotator``, the 12 factors, ``overall``), read
    through ``m``, and a report of what was mapped, ignored and never seen."""
    file, rows, seen = str(path), [], Counter[str]()
    keys: set[tuple[str, Any]] = set()
    named: dict[bool, int] = {}
    reserved = {k for k in (m.id, m.system, m.annotator, m.turns) if k}
    for line, rec in iter_records(path):
        if not isinstance(rec, dict):
            raise DataError("expected a JSON object", file=file, line=line, field="<record>")
        did = rec.get(m.id)
        if not isinstance(did, str) or not did.strip():
            raise DataError("expected a non-empty string (the mapping's 'id')", file=file, line=line, field=m.id)
        system = rec.get(m.system) if m.system else None
        if m.system_pattern is not None:
            if not (hit := re.match(m.system_pattern, did)):
                raise DataError(f"does not match system_pattern {m.system_pattern!r}", file=file, line=line, field=m.id)
            system = hit.group(1)
        annotator = rec.get(m.annotator) if m.annotator else None
        if m.repeated_ids == "unnamed_annotators":
            seen[f"id:{did}"] += 1
            annotator = f"#{seen[f'id:{did}']}"
        check_annotator(keys, named, did, annotator, file, line, m.annotator or "annotator", m.id)
        values = _read_labels(
            m,
            _labels(rec, m.dialogue_labels, reserved, file, line, m.dialogue_labels or ""),
            "dialogue",
            m.dialogue_labels or "",
            file,
            line,
            seen,
        )
        turns = rec.get(m.turns) if m.turns else None
        if turns is not None and not isinstance(turns, list):
            raise DataError("expected a list of turns", file=file, line=line, field=m.turns)
        per_turn: dict[str, list[float]] = {}
        for i, turn in enumerate(turns or []):
            if not isinstance(turn, dict):
                raise DataError("expected a turn object", file=file, line=line, field=f"{m.turns}[{i}]")
            where = f"{m.turns}[{i}].{m.turn_labels}"
            got = _labels(turn, m.turn_labels, set(), file, line, where)
            for name, v in _read_labels(m, got, "turn", where, file, line, seen).items():
                per_turn.setdefault(name, []).append(v)
        for name, vs in per_turn.items():  # turn_aggregation: mean over the labelled turns (NaN skipped)
            ok = [v for v in vs if not math.isnan(v)]
            values[name] = sum(ok) / len(ok) if ok else math.nan
        row: dict[str, Any] = {"dialogue_id": did, "system": system, "annotator": annotator}
        row.update({f: math.nan for f in FACTORS})
        row["overall"] = math.nan
        row.update({m.labels[name].to: v for name, v in values.items()})
        rows.append(row)
    if not rows:
        raise DataError("no records (empty file)", file=file)
    report = {
        "map": m.name,
        "source": m.source,
        "turn_aggregation": m.turn_aggregation,
        "unnamed_annotators": m.repeated_ids == "unnamed_annotators",
        "labels": [
            {
                "label": n,
                **s.model_dump(exclude={"values"}),
                "n_values": seen[f"read:{n}"],
                "qwk": qwk_reasons(m).get(s.to, "computed" if s.to != "overall" else "not applicable (correlations)"),
            }
            for n, s in m.labels.items()
        ],
        "ignored": {n: seen[f"ignored:{n}"] for n in m.ignore},
        "never_seen": [n for n in m.labels if not seen[f"read:{n}"]],
    }
    return pd.DataFrame(rows), report
