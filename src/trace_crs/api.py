"""The Python API: score a system, load the data, run baselines — pandas in, pandas out.

>>> import trace_crs
>>> kb = trace_crs.load_kb(kb_dir)                                   # doctest: +SKIP
>>> dialogues = trace_crs.load_dialogues(dialogues_path)             # doctest: +SKIP
>>> scores = trace_crs.score(kb, dialogues, "mine.jsonl", pool="closed")   # doctest: +SKIP
>>> scores.aggregate["metrics"]["recall@1"], scores.per_turn.shape   # doctest: +SKIP

The runnable examples are in ``tests/test_api.py`` (a tiny KB built in the test).  The API checks
what the CLI checks: unknown or mistyped keyword arguments, empty inputs and an ``out`` that
overlaps an input raise :class:`~trace_crs.errors.UsageError` (a ``ValueError``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.atomic import refuse_overlap
from trace_crs.config import from_mapping
from trace_crs.dialogues.schema import Dialogue
from trace_crs.dialogues.schema import load_dialogues as _load_dialogues
from trace_crs.errors import UsageError
from trace_crs.kb import KB
from trace_crs.kb import load_kb as _load_kb

__all__ = ["evaluate", "load_dialogues", "load_kb", "score"]


def load_kb(directory: str | Path) -> KB:
    """The KB in ``directory`` (``pois.jsonl``, ``reviews.jsonl``, ``MANIFEST.json``)."""
    return _load_kb(directory)


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """The dialogues of a JSON-lines corpus, each checked against the dialogue schema."""
    return _load_dialogues(path)


def score(
    kb: KB | str | Path,
    dialogues: list[Dialogue] | list[dict[str, Any]] | str | Path,
    predictions: str | Path | Iterable[Mapping[str, Any]],
    **config: Any,
):
    """Score predictions (a JSON-lines path or an iterable of records, ARCHITECTURE §5) on
    ``dialogues`` with the Trace metrics; ``config`` are :class:`~trace_crs.metrics.score.ScoreConfig`
    fields (``pool``, ``fuzzy_threshold``, ``strict``, …).  Returns
    :class:`~trace_crs.metrics.score.Scores`: ``per_turn`` and ``per_dialogue`` DataFrames and the
    ``aggregate`` dict that ``trace-crs score`` writes."""
    from trace_crs.metrics.predictions import read_predictions
    from trace_crs.metrics.score import ScoreConfig, score_predictions

    cfg = from_mapping(ScoreConfig, config, "trace_crs.score(...)")  # unknown or mistyped keys: UsageError
    kb = kb if isinstance(kb, KB) else load_kb(kb)
    corpus = dialogues if isinstance(dialogues, list) else load_dialogues(dialogues)
    if not corpus:
        raise UsageError("trace_crs.score(...): no dialogues to score (an empty corpus)")
    if isinstance(predictions, (str, Path)):
        predictions = read_predictions(predictions, corpus, kb, pool=cfg.pool)
    else:
        predictions = list(predictions)
        if not predictions:
            raise UsageError("trace_crs.score(...): predictions is empty (the CLI refuses an empty file too)")
    return score_predictions(kb, corpus, predictions, cfg)


def evaluate(
    kb_dir: str | Path, dialogues_path: str | Path, out: str | Path, baselines: str = "non-llm", **config: Any
) -> pd.DataFrame:
    """Run baselines over reference dialogues (``trace-crs evaluate``) into ``out`` and return
    the records (one row per dialogue × recommend/compare turn × baseline); ``config`` are
    :class:`~trace_crs.runner.run.RunConfig` fields (``pool``, ``subset``, ``seed``, …)."""
    from trace_crs.runner.run import RunConfig
    from trace_crs.runner.run import evaluate as run_evaluate

    refuse_overlap([out], [kb_dir, dialogues_path], flag="out")  # the CLI's guard (trace_crs.atomic)
    cfg = from_mapping(
        RunConfig,
        {"kb": str(kb_dir), "dialogues": str(dialogues_path), "baselines": baselines, **config},
        "trace_crs.evaluate(...)",
    )
    run_evaluate(cfg, out, progress=False)
    return pd.read_parquet(Path(out) / "records.parquet")
