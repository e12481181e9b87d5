"""Re-scoring analyses of Appendix L (Tables 16, 18, NLI threshold and bimodality) and Appendix O
(Figure 6 error rates), computed from a run's inputs and written to ``results/`` for the book.

Each analysis reads the runs' KB, dialogues and predictions (:mod:`trace_crs.stats.rescore`, a
seeded sample of ``n_dialogues`` per run), re-scores them through ``trace_crs.metrics`` and
summarises with :mod:`trace_crs.stats.sweeps`; :func:`analyse` dispatches by name and
:func:`write` saves the frame atomically as Parquet.  ``trace-crs stats sensitivity`` runs it
(``mk/sensitivity.mk`` under ``make paper``); ``trace_crs.report`` only reads the file and lays
it beside the printed table.  Every frame carries ``run`` and ``n_dialogues`` per row.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import cast

import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import write_atomic
from trace_crs.config import ScoreConfig
from trace_crs.errors import UsageError
from trace_crs.metrics import errors
from trace_crs.metrics.entailment import Backend, make_backend
from trace_crs.metrics.grounding import grounding_score
from trace_crs.stats.rescore import RunInputs, run_inputs
from trace_crs.stats.sweeps import (
    FUZZY_THRESHOLDS,
    NLI_THRESHOLDS,
    SPATIAL_KM,
    bimodality,
    fuzzy_threshold_sensitivity,
    nli_threshold_sensitivity,
    spatial_threshold_sensitivity,
)

EXACT = 1.0  # fuzzy threshold of the "exact" setting: partial_ratio 100 = verbatim (lower-cased)
ERROR_KINDS = ("grounding", "recommendation", "relevance")  # Figure 6's three error flags
ANALYSES = ("fuzzy", "spatial", "nli", "bimodality", "errors")
DEFAULT_SETTINGS: dict[str, tuple[Hashable, ...]] = {
    "fuzzy": FUZZY_THRESHOLDS,
    "spatial": SPATIAL_KM,
    "nli": NLI_THRESHOLDS,
}


def parse_settings(text: str) -> tuple[Hashable, ...]:
    """``"0.7,0.8,exact"`` → ``(0.7, 0.8, "exact")``: numbers as floats, words kept."""
    out: list[Hashable] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        try:
            out.append(float(part))
        except ValueError:
            out.append(part)
    return tuple(out)


def _with_runs(sweep: pd.DataFrame, inputs: Sequence[RunInputs]) -> pd.DataFrame:
    """Add each baseline's ``run`` and that run's ``n_dialogues`` (as the printed tables show)."""
    runs = {b: i.run for i in inputs for b in i.baselines}
    sizes = {i.run: len(i.dialogues) for i in reversed(inputs)}  # the first input of a run wins
    return sweep.assign(run=sweep["baseline"].map(runs), n_dialogues=sweep["baseline"].map(runs).map(sizes))


def fuzzy_sweep(inputs: Sequence[RunInputs], settings: Sequence[Hashable] = FUZZY_THRESHOLDS) -> pd.DataFrame:
    """Table 16: GS (``metrics.grounding``) of every baseline's turns at each fuzzy threshold
    (``"exact"`` = :data:`EXACT`), pooled over the runs (``stats.sweeps``)."""
    turns = pd.concat([i.turns() for i in inputs], ignore_index=True)

    def gs_at(setting: Hashable) -> pd.DataFrame:
        tau = EXACT if setting == "exact" else float(cast(float, setting))
        return turns[["baseline"]].assign(gs=grounding_score(list(turns["text"]), list(turns["cited"]), tau))

    return _with_runs(fuzzy_threshold_sensitivity(gs_at, tuple(settings)), inputs)


def spatial_sweep(inputs: Sequence[RunInputs], settings: Sequence[float] = SPATIAL_KM) -> pd.DataFrame:
    """Table 18: spatial coherence of every run re-scored with ``spatial_km`` at each setting."""

    def source(km: Hashable) -> pd.DataFrame:
        return pd.concat([i.score(spatial_km=float(cast(float, km)))[1] for i in inputs], ignore_index=True)

    return _with_runs(spatial_threshold_sensitivity(source, tuple(settings)), inputs)


def entailment_backend(spec: str) -> Backend:
    """The NLI backend ``spec`` (``metrics.entailment.make_backend``); ``none`` is an error here."""
    backend = make_backend(spec)
    if backend is None:
        raise UsageError("the NLI sensitivity needs an entailment backend (embedding, hf:DIR or llm), not 'none'")
    return backend


def nli_sweep(inputs: RunInputs, backend: Backend, settings: Sequence[float] = NLI_THRESHOLDS) -> pd.DataFrame:
    """Entailment grounding at each NLI threshold (App. L): tidy sweep with ``run, backend, n_dialogues``."""
    out = nli_threshold_sensitivity(
        lambda t: inputs.score(entailment=backend, entail_threshold=float(cast(float, t)))[0], tuple(settings)
    )
    return out.assign(run=inputs.run, backend=backend.name, n_dialogues=len(inputs.dialogues))


def nli_bimodality(inputs: RunInputs, backend: Backend) -> pd.DataFrame:
    """Per baseline the shares of claim probabilities below 0.3 / between / above 0.7 and Sarle's b."""
    out = bimodality(inputs.claim_probabilities(backend))
    return out.assign(run=inputs.run, backend=backend.name, n_dialogues=len(inputs.dialogues))


def error_flags(turns: pd.DataFrame, fuzzy_threshold: float = ScoreConfig.fuzzy_threshold) -> pd.DataFrame:
    """``turns`` (:meth:`RunInputs.turns`) with one 0/1 column per error kind (``metrics.errors``)."""
    return turns.assign(
        grounding=errors.grounding_errors(list(turns["text"]), list(turns["cited"]), fuzzy_threshold),
        recommendation=errors.recommendation_errors(list(turns["gold"]), list(turns["ranked"])),
        relevance=errors.relevance_errors(list(turns["text"]), list(turns["user_history"])),
    )


def error_rates(inputs: Sequence[RunInputs], fuzzy_threshold: float = ScoreConfig.fuzzy_threshold) -> pd.DataFrame:
    """Figure 6: per baseline the mean of each error flag over its reference recommend/compare
    turns, with ``run, n_dialogues, n_turns``."""
    turns = pd.concat(
        [error_flags(i.turns(), fuzzy_threshold).assign(run=i.run, n_dialogues=len(i.dialogues)) for i in inputs],
        ignore_index=True,
    )
    rates = turns.groupby("baseline")[list(ERROR_KINDS)].mean()
    meta = turns.groupby("baseline").agg(
        run=("run", "first"), n_dialogues=("n_dialogues", "first"), n_turns=("turn_id", "size")
    )
    return rates.join(meta).reset_index()


def analyse(
    analysis: str,
    results_dir: str | Path,
    runs: Sequence[str],
    *,
    baselines: Sequence[str] | None = None,
    n_dialogues: int | None = None,
    seed: int = DEFAULT_SEED,
    settings: Sequence[Hashable] | None = None,
    entailment: str = "embedding",
    fuzzy_threshold: float = ScoreConfig.fuzzy_threshold,
) -> pd.DataFrame:
    """Run ``analysis`` (one of :data:`ANALYSES`) on ``runs`` of ``results_dir``."""
    if analysis not in ANALYSES:
        raise UsageError(f"unknown sensitivity analysis {analysis!r}; one of {', '.join(ANALYSES)}")
    if settings is not None and analysis not in DEFAULT_SETTINGS:
        raise UsageError(f"--settings does not apply to the {analysis!r} analysis")
    if analysis in ("nli", "bimodality") and len(runs) != 1:
        raise UsageError(f"the {analysis!r} analysis reads one run, got {list(runs)}")
    backend = entailment_backend(entailment) if analysis in ("nli", "bimodality") else None
    inputs = [run_inputs(results_dir, run, baselines, n_dialogues, seed) for run in runs]
    chosen = tuple(settings) if settings is not None else DEFAULT_SETTINGS.get(analysis, ())
    if analysis == "fuzzy":
        return fuzzy_sweep(inputs, chosen)
    if analysis == "spatial":
        return spatial_sweep(inputs, cast("Sequence[float]", chosen))  # float() of each setting raises on a word
    if analysis == "nli":
        return nli_sweep(inputs[0], cast(Backend, backend), cast("Sequence[float]", chosen))  # backend set above
    if analysis == "bimodality":
        return nli_bimodality(inputs[0], cast(Backend, backend))  # set above for nli/bimodality
    return error_rates(inputs, fuzzy_threshold)


def write(frame: pd.DataFrame, path: str | Path) -> Path:
    """Save ``frame`` as Parquet, atomically; a ``setting`` column mixing numbers and words
    (Table 16's ``exact``) is stored as text."""
    if "setting" in frame and frame["setting"].dtype == object:
        frame = frame.assign(setting=frame["setting"].astype(str))
    return write_atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))
