"""Load a profile's results (ARCHITECTURE §4, §5, §9) into pandas frames.

``results_dir`` is always the profile directory ``results/<profile>``; every path under it comes
from :mod:`trace_crs.results_layout`.  Where the numbers come from:

* ``scores/<run>/<baseline>.json|.per_turn.parquet|.per_dialogue.parquet`` are written by
  ``trace-crs score`` (:mod:`trace_crs.cli.score`, one call per baseline in ``mk/paper.mk``),
  which calls :func:`trace_crs.metrics.score.score_predictions`; each metric column is an entry
  of :data:`trace_crs.metrics.registry.METRICS`, whose entry names its function (e.g. ``recall@1``
  → :func:`trace_crs.metrics.recommendation.recall_at_k`, ``cgs`` →
  :func:`trace_crs.metrics.grounding.composite`) and how the corpus value aggregates it;
* ``runs/<run>/`` (records, config, manifest, predictions) is written by ``trace-crs evaluate``
  (:func:`trace_crs.runner.run.evaluate`).

Every loader raises :class:`ResultsMissing`, naming the missing path, when a run was not
produced.  This module only reads and concatenates; metrics and statistics come from upstream.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from trace_crs import results_layout as layout
from trace_crs.atomic import write_atomic
from trace_crs.metrics import registry as metric_registry
from trace_crs.results_layout import ResultsMissing, require

__all__ = ["ResultsMissing", "require"]  # re-exported: the report modules' one existence check
TABLES_DIR = layout.TABLES
META_COLUMNS = ("run", "baseline", "n_dialogues", "n_turns", "n_missing", "signature")


def _runs(runs: str | Iterable[str]) -> list[str]:
    return [runs] if isinstance(runs, str) else list(runs)


def scores_dir(results_dir: str | Path, run: str) -> Path:
    """``<results_dir>/scores/<run>``, which must exist and hold at least one score file."""
    path = require(layout.scores_dir(results_dir, run), f"score directory of run '{run}'")
    if not any(path.glob("*.json")):
        raise ResultsMissing(f"no score files (<baseline>.json) in {path}")
    return path


def run_baselines(results_dir: str | Path, run: str) -> list[str]:
    """Baseline keys scored in ``run``, sorted."""
    return sorted(p.stem for p in scores_dir(results_dir, run).glob("*.json"))


def read_aggregate(results_dir: str | Path, run: str, baseline: str) -> dict[str, Any]:
    """The aggregate score JSON of one baseline in one run (§5)."""
    path = require(layout.score_file(results_dir, run, baseline), f"score file of '{baseline}' in run '{run}'")
    return json.loads(path.read_text())


def load_aggregates(
    results_dir: str | Path, runs: str | Iterable[str], baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per (run, baseline): ``run, baseline, n_dialogues, n_turns, n_missing,
    signature`` + one column per aggregate metric key."""
    rows = []
    undefined: dict[str, dict[str, str]] = {}
    for run in _runs(runs):
        for baseline in run_baselines(results_dir, run):
            agg = read_aggregate(results_dir, run, baseline)
            row = {"run": run, "baseline": baseline, **{k: agg.get(k) for k in META_COLUMNS[2:]}}
            row.update(agg.get("metrics", {}))
            rows.append(row)
            for metric, n in agg.get("n_undefined", {}).items():  # computed, and no dialogue has a value
                if n and n == agg.get("n_dialogues") and metric in metric_registry.METRICS:
                    undefined.setdefault(metric, {})[baseline] = metric_registry.undefined(metric)
    out = _keep(pd.DataFrame(rows), baselines, runs, results_dir)
    out.attrs = {UNDEFINED: undefined}
    return out


def _keep(
    frame: pd.DataFrame, baselines: Sequence[str] | None, runs: str | Iterable[str], results_dir: str | Path
) -> pd.DataFrame:
    """Restrict ``frame`` to ``baselines`` (all if None); a baseline scored nowhere is an error."""
    if baselines is None:
        return frame.reset_index(drop=True)
    missing = [b for b in baselines if b not in set(frame["baseline"])]
    if missing:
        dirs = [str(layout.scores_dir(results_dir, r)) for r in _runs(runs)]
        raise ResultsMissing(f"baseline(s) {missing} not scored in any of {dirs}")
    return frame[frame["baseline"].isin(baselines)].reset_index(drop=True)


def _load_frames(
    results_dir: str | Path, runs: str | Iterable[str], kind: str, baselines: Sequence[str] | None
) -> pd.DataFrame:
    frames = []
    for run in _runs(runs):
        for baseline in run_baselines(results_dir, run):
            path = require(
                layout.score_file(results_dir, run, baseline, kind), f"{kind} scores of '{baseline}' in run '{run}'"
            )
            frame = pd.read_parquet(path)
            frame.insert(0, "baseline", baseline)
            frame.insert(0, "run", run)
            frames.append(frame)
    return _keep(pd.concat(frames, ignore_index=True), baselines, runs, results_dir)


def load_per_turn(
    results_dir: str | Path, runs: str | Iterable[str], baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """Per-turn score frames of ``runs`` concatenated, with ``run`` and ``baseline`` columns."""
    return _load_frames(results_dir, runs, "per_turn", baselines)


def load_per_dialogue(
    results_dir: str | Path, runs: str | Iterable[str], baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """Per-dialogue score frames of ``runs`` concatenated, with ``run`` and ``baseline``."""
    return _load_frames(results_dir, runs, "per_dialogue", baselines)


def load_run_config(results_dir: str | Path, run: str) -> dict[str, Any]:
    """The resolved ``config.yaml`` of a run (§4)."""
    path = require(layout.run_file(results_dir, run, layout.RUN_CONFIG), f"config of run '{run}'")
    return yaml.safe_load(path.read_text()) or {}


def records_file(results_dir: str | Path, run: str) -> Path:
    """``runs/<run>/records.parquet`` of run ``run`` (§4), which must exist."""
    return require(layout.run_file(results_dir, run, layout.RECORDS), f"records of run '{run}'")


def load_run_manifest(results_dir: str | Path, run: str) -> dict[str, Any]:
    """The ``MANIFEST.json`` of a run (§4: inputs' and outputs' SHA256)."""
    path = require(layout.run_file(results_dir, run, layout.RUN_MANIFEST), f"manifest of run '{run}'")
    return json.loads(path.read_text())


def metric_table(aggregates: pd.DataFrame) -> pd.DataFrame:
    """Aggregates indexed by baseline key (one run per baseline required)."""
    dupes = aggregates["baseline"][aggregates["baseline"].duplicated()].tolist()
    if dupes:
        raise ValueError(
            f"baseline(s) {sorted(set(dupes))} appear in more than one run; "
            "select the runs so each baseline comes from exactly one"
        )
    out = aggregates.set_index("baseline")
    out.attrs = dict(aggregates.attrs)
    return out


def with_metric(
    table: pd.DataFrame,
    results_dir: str | Path,
    runs: str | Iterable[str] | None,
    metric: str,
    as_name: str | None = None,
) -> pd.DataFrame:
    """``table`` with ``metric`` taken from the aggregates of ``runs`` (joined by baseline,
    stored as ``as_name``); ``runs=None`` returns ``table`` unchanged.  Which run made the joined
    numbers (its ``run, n_dialogues, n_turns, signature`` per baseline) goes into
    ``attrs[JOINED][name]``, so a table's cells of that column name their own run."""
    if runs is None:
        return table
    other = metric_table(load_aggregates(results_dir, runs))
    name = as_name or metric
    column = other[metric] if metric in other.columns else pd.Series(float("nan"), index=other.index)
    out = table.drop(columns=name, errors="ignore").join(column.rename(name))
    # plain dicts: pandas compares attrs when it concatenates, and a frame there has no truth value
    made_by = other[[c for c in PROVENANCE_COLUMNS if c in other.columns]].to_dict("index")
    undefined = {**table.attrs.get(UNDEFINED, {}), name: other.attrs.get(UNDEFINED, {}).get(metric, {})}
    out.attrs = {**table.attrs, JOINED: {**table.attrs.get(JOINED, {}), name: made_by}, UNDEFINED: undefined}
    return out


# attrs key of a metric table: metric -> {baseline: why the metric has no value although it was computed}
UNDEFINED = "undefined"
# Long-frame column of a reported-vs-reproduced table: what the user must bring for a cell this build
# cannot compute offline (an API model, the official release); "" elsewhere (present shows "needs input").
NEEDS = "needs"
JOINED = "joined_from"  # attrs key of with_metric: joined column -> {baseline: provenance of its number}
# Carried from a metric table into every table CSV (which run and config made the number).
PROVENANCE_COLUMNS = ["run", "n_dialogues", "n_turns", "signature"]


def write_table(frame: pd.DataFrame, results_dir: str | Path, name: str) -> Path:
    """Write ``<results_dir>/tables/<name>.csv`` whole or not at all (:func:`trace_crs.atomic.write_atomic`;
    deterministic: no index, fixed float format)."""
    path = layout.table(results_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda tmp: frame.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n"))
