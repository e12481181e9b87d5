"""Every path under ``results/<profile>/`` (ARCHITECTURE §4, §5): the one place that spells them.

Writers (``trace-crs evaluate`` → :mod:`trace_crs.runner.run`, ``trace-crs score`` →
:mod:`trace_crs.cli.score`, the notebooks' :func:`trace_crs.report.results.write_table`) and
readers (:mod:`trace_crs.report.results`, :mod:`trace_crs.stats.rescore`, the report modules)
build paths here::

    results/<profile>/runs/<run>/{records.parquet, config.yaml, MANIFEST.json, dialogue_ids.json,
                                  predictions/<baseline>.jsonl}
    results/<profile>/scores/<run>/<baseline>.json (+ .per_turn.parquet, .per_dialogue.parquet)
    results/<profile>/tables/<name>.csv
    results/<profile>/timings/<step>.json

:func:`require` is the one existence check: a missing path raises :class:`ResultsMissing`
(a :class:`FileNotFoundError`, so the CLI reports it as a usage error) naming the path and the
command that produces it.
"""

from __future__ import annotations

from pathlib import Path

RUNS, SCORES, TABLES, TIMINGS = "runs", "scores", "tables", "timings"
RECORDS = "records.parquet"
RUN_CONFIG = "config.yaml"
RUN_MANIFEST = "MANIFEST.json"
DIALOGUE_IDS = "dialogue_ids.json"
PREDICTIONS = "predictions"
SCORE_KINDS: tuple[str, ...] = ("json", "per_turn", "per_dialogue")  # score files of one baseline


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


def run_dir(results_dir: str | Path, run: str) -> Path:
    """``<results_dir>/runs/<run>``: what ``trace-crs evaluate --out`` writes."""
    return Path(results_dir) / RUNS / run


def run_file(results_dir: str | Path, run: str, name: str) -> Path:
    """A file of run ``run`` (:data:`RECORDS`, :data:`RUN_CONFIG`, :data:`RUN_MANIFEST`, …)."""
    return run_dir(results_dir, run) / name


def predictions(results_dir: str | Path, run: str, baseline: str | None = None) -> Path:
    """The predictions folder of ``run``, or the ``<baseline>.jsonl`` in it."""
    folder = run_dir(results_dir, run) / PREDICTIONS
    return folder if baseline is None else folder / f"{baseline}.jsonl"


def scores_dir(results_dir: str | Path, run: str) -> Path:
    """``<results_dir>/scores/<run>``: the score files ``trace-crs score --out`` writes per baseline."""
    return Path(results_dir) / SCORES / run


def score_outputs(out: str | Path) -> dict[str, Path]:
    """The files of one score, by kind: the aggregate JSON ``out`` and, beside it,
    ``<out stem>.per_turn.parquet`` and ``<out stem>.per_dialogue.parquet`` (ARCHITECTURE §5)."""
    out = Path(out)
    return {"json": out, **{k: out.with_name(f"{out.stem}.{k}.parquet") for k in SCORE_KINDS[1:]}}


def score_file(results_dir: str | Path, run: str, baseline: str, kind: str = "json") -> Path:
    """The aggregate JSON (``kind="json"``) or the ``per_turn``/``per_dialogue`` parquet of one
    baseline in one run (:func:`score_outputs` of ``scores/<run>/<baseline>.json``)."""
    if kind not in SCORE_KINDS:
        raise ValueError(f"score file kind {kind!r}: one of {', '.join(SCORE_KINDS)}")
    return score_outputs(scores_dir(results_dir, run) / f"{baseline}.json")[kind]


def table(results_dir: str | Path, name: str) -> Path:
    """``<results_dir>/tables/<name>.csv``: a table the notebooks write."""
    return Path(results_dir) / TABLES / f"{name}.csv"


def timings_dir(results_dir: str | Path) -> Path:
    """``<results_dir>/timings``: each build step's wall-time record."""
    return Path(results_dir) / TIMINGS
