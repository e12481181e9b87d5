"""Aggregating twelve factor results (seed 001 §4.2, §7.1.4, §7.2).

* CoRE-Avg (:func:`core_avg`): the mean of the twelve 0–4 ratings — ``None`` unless every factor
  was rated (a failed factor is never replaced by a guess).
* Mixture of evaluators (:func:`mixture`): per factor, the rating of the judge a table picks (CoRE
  Fig. 11 picks, per factor, the LLM with the best QWK against humans).  A table is YAML
  ``{"judges": {name: {lm key: value}}, "factors": {factor: judge name}, "default": name?}``
  (:func:`load_mixture`; ``data/mixture_paper.yaml`` is CoRE's own choice, for reference).
* The 4-role debate lives in :mod:`trace_crs.judge.debate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from trace_crs.errors import DataError
from trace_crs.judge.core import FactorResult
from trace_crs.judge.factors import FACTORS


def core_avg(results: Mapping[str, FactorResult]) -> float | None:
    """Mean of the twelve ratings (0–4), or ``None`` when any factor has no rating."""
    ratings = [results[n].rating if n in results else None for n in FACTORS]
    if any(r is None for r in ratings):
        return None
    return sum(r for r in ratings if r is not None) / len(ratings)  # all rated (checked above)


def mixture(
    results_by_judge: Mapping[str, Mapping[str, FactorResult]], choice: Mapping[str, str]
) -> dict[str, FactorResult]:
    """Each factor's result from the judge ``choice[factor]`` names."""
    missing = [n for n in FACTORS if n not in choice]
    if missing:
        raise ValueError(f"mixture table assigns no judge to {missing}")
    unknown = sorted({j for j in choice.values() if j not in results_by_judge})
    if unknown:
        raise ValueError(f"mixture table names judge(s) {unknown} without results; known: {sorted(results_by_judge)}")
    return {n: results_by_judge[choice[n]][n] for n in FACTORS}


def load_mixture(path: str | Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """``(judges: name -> LM settings, choice: factor -> judge name)`` from a mixture table;
    an unknown factor, an unassigned factor or an undefined judge raises :class:`DataError`."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as exc:
        raise DataError(f"not YAML: {str(exc).splitlines()[0]}", file=str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("judges"), dict) or not data["judges"]:
        raise DataError("expected a mapping with a non-empty 'judges' mapping", file=str(path), field="judges")
    judges = {str(k): dict(v or {}) for k, v in data["judges"].items()}
    given = data.get("factors") or {}
    if not isinstance(given, dict):
        raise DataError("expected a mapping factor -> judge", file=str(path), field="factors")
    unknown = sorted(set(given) - set(FACTORS))
    if unknown:
        raise DataError(
            f"unknown factor(s) {unknown}; expected some of {list(FACTORS)}", file=str(path), field="factors"
        )
    default = data.get("default")
    choice = {n: str(given.get(n, default)) for n in FACTORS if given.get(n, default) is not None}
    if len(choice) < len(FACTORS):
        raise DataError(
            f"no judge for {[n for n in FACTORS if n not in choice]} (and no 'default')",
            file=str(path),
            field="factors",
        )
    bad = sorted({j for j in choice.values() if j not in judges})
    if bad:
        raise DataError(f"judge(s) {bad} not defined under 'judges'", file=str(path), field="factors")
    return judges, choice
