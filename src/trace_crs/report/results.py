"""Load a profile's results (ARCHITECTURE §4, §5, §9) into pandas frames.

``results_dir`` is always the profile directory ``results/<profile>``.  Score files of a
run live in ``<results_dir>/scores/<run>/<baseline>.json|.per_turn.parquet|
.per_dialogue.parquet``; run outputs in ``<results_dir>/runs/<run>/``.  Every loader
raises :class:`ResultsMissing`, naming the missing path, when a run was not produced.
This module only reads and concatenates; metrics and statistics come from upstream.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

TABLES_DIR = "tables"
META_COLUMNS = ("run", "baseline", "n_dialogues", "n_turns", "n_missing", "signature")


class ResultsMissing(FileNotFoundError):
    """A results path a table needs does not exist; the message names it."""


def require(path: str | Path, what: str) -> Path:
    """Return ``path`` if it exists, else raise :class:`ResultsMissing` naming it."""
    path = Path(path)
    if not path.exists():
        raise ResultsMissing(
            f"{what} not found: {path} (produce it with `make paper` or `trace-crs evaluate`/"
            f"`trace-crs score` for this profile)"
        )
    return path


def _runs(runs: str | Iterable[str]) -> list[str]:
    return [runs] if isinstance(runs, str) else list(runs)


def scores_dir(results_dir: str | Path, run: str) -> Path:
    """``<results_dir>/scores/<run>``, which must exist and hold at least one score file."""
    path = require(Path(results_dir) / "scores" / run, f"score directory of run '{run}'")
    if not any(path.glob("*.json")):
        raise ResultsMissing(f"no score files (<baseline>.json) in {path}")
    return path


def run_baselines(results_dir: str | Path, run: str) -> list[str]:
    """Baseline keys scored in ``run``, sorted."""
    return sorted(p.stem for p in scores_dir(results_dir, run).glob("*.json"))


def read_aggregate(results_dir: str | Path, run: str, baseline: str) -> dict[str, Any]:
    """The aggregate score JSON of one baseline in one run (§5)."""
    path = require(
        Path(results_dir) / "scores" / run / f"{baseline}.json", f"score file of '{baseline}' in run '{run}'"
    )
    return json.loads(path.read_text())


def load_aggregates(
    results_dir: str | Path, runs: str | Iterable[str], baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per (run, baseline): ``run, baseline, n_dialogues, n_turns, n_missing,
    signature`` + one column per aggregate metric key."""
    rows = []
    for run in _runs(runs):
        for baseline in run_baselines(results_dir, run):
            agg = read_aggregate(results_dir, run, baseline)
            row = {"run": run, "baseline": baseline, **{k: agg.get(k) for k in META_COLUMNS[2:]}}
            row.update(agg.get("metrics", {}))
            rows.append(row)
    return _keep(pd.DataFrame(rows), baselines, runs, results_dir)


def _keep(
    frame: pd.DataFrame, baselines: Sequence[str] | None, runs: str | Iterable[str], results_dir: str | Path
) -> pd.DataFrame:
    """Restrict ``frame`` to ``baselines`` (all if None); a baseline scored nowhere is an error."""
    if baselines is None:
        return frame.reset_index(drop=True)
    missing = [b for b in baselines if b not in set(frame["baseline"])]
    if missing:
        dirs = [str(Path(results_dir) / "scores" / r) for r in _runs(runs)]
        raise ResultsMissing(f"baseline(s) {missing} not scored in any of {dirs}")
    return frame[frame["baseline"].isin(baselines)].reset_index(drop=True)


def _load_frames(
    results_dir: str | Path, runs: str | Iterable[str], kind: str, baselines: Sequence[str] | None
) -> pd.DataFrame:
    frames = []
    for run in _runs(runs):
        for baseline in run_baselines(results_dir, run):
            path = require(
                Path(results_dir) / "scores" / run / f"{baseline}.{kind}.parquet",
                f"{kind} scores of '{baseline}' in run '{run}'",
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
    path = require(Path(results_dir) / "runs" / run / "config.yaml", f"config of run '{run}'")
    return yaml.safe_load(path.read_text()) or {}


def load_run_manifest(results_dir: str | Path, run: str) -> dict[str, Any]:
    """The ``MANIFEST.json`` of a run (§4: inputs' and outputs' SHA256)."""
    path = require(Path(results_dir) / "runs" / run / "MANIFEST.json", f"manifest of run '{run}'")
    return json.loads(path.read_text())


def metric_table(aggregates: pd.DataFrame) -> pd.DataFrame:
    """Aggregates indexed by baseline key (one run per baseline required)."""
    dupes = aggregates["baseline"][aggregates["baseline"].duplicated()].tolist()
    if dupes:
        raise ValueError(
            f"baseline(s) {sorted(set(dupes))} appear in more than one run; "
            "select the runs so each baseline comes from exactly one"
        )
    return aggregates.set_index("baseline")


def with_metric(
    table: pd.DataFrame,
    results_dir: str | Path,
    runs: str | Iterable[str] | None,
    metric: str,
    as_name: str | None = None,
) -> pd.DataFrame:
    """``table`` with ``metric`` taken from the aggregates of ``runs`` (joined by baseline,
    stored as ``as_name``); ``runs=None`` returns ``table`` unchanged."""
    if runs is None:
        return table
    other = metric_table(load_aggregates(results_dir, runs))
    name = as_name or metric
    column = other[metric] if metric in other.columns else pd.Series(float("nan"), index=other.index)
    return table.drop(columns=name, errors="ignore").join(column.rename(name))


def write_table(frame: pd.DataFrame, results_dir: str | Path, name: str) -> Path:
    """Write ``<results_dir>/tables/<name>.csv`` (deterministic: no index, fixed float format)."""
    path = Path(results_dir) / TABLES_DIR / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path
