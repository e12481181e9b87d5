"""One score file's numbers with the opt-in backends of its :class:`~trace_crs.config.ScoreConfig`
(ARCHITECTURE §5; STYLE "``trace-crs score``": entailment and judge are opt-in).

:func:`score_with_backends` opens what ``cfg`` asks for — the entailment backend
(:func:`trace_crs.metrics.entailment.make_backend`; ``llm`` uses the LM ``lm_model``) and the
LLM judge (:func:`trace_crs.metrics.judge.judge_columns` on the seeded judged subset of the whole
``corpus``) — scores, and closes them.  ``trace-crs score`` and the run's own scores
(``trace-crs evaluate --score``) both call it, so the two agree on the same settings.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import dspy

from trace_crs.config import ScoreConfig, parse_overrides
from trace_crs.kb import KB
from trace_crs.metrics.predictions import Key
from trace_crs.metrics.score import Scores, aggregate, score_predictions


def open_lm(model: str, stack: contextlib.ExitStack, overrides: list[str] | None = None) -> dspy.BaseLM:
    """The LM ``model`` (or the LM settings ``overrides``), closed with ``stack``."""
    from trace_crs.lm.backend import open_lm as open_backend
    from trace_crs.lm.config import resolve_lm_config

    return stack.enter_context(open_backend(resolve_lm_config(parse_overrides(overrides or [f"model={model}"]))))


def score_with_backends(
    kb: KB,
    corpus: Sequence[Mapping[str, Any]],
    dialogues: Sequence[Mapping[str, Any]],
    predictions: Mapping[Key, dict],
    cfg: ScoreConfig,
    lm_model: str = "local",
) -> Scores:
    """:func:`~trace_crs.metrics.score.score_predictions` of ``dialogues`` (a subset of
    ``corpus``) with the entailment backend and judge ``cfg`` names; the judge's LM usage goes
    into the aggregate as ``judge_usage``."""
    from trace_crs.metrics.entailment import make_backend
    from trace_crs.metrics.judge import judge_columns, judge_lm_overrides

    with contextlib.ExitStack() as stack:
        ent = make_backend(cfg.entailment, open_lm(lm_model, stack) if cfg.entailment == "llm" else None)
        scores = score_predictions(kb, dialogues, predictions, cfg, entailment=ent)
        if cfg.judge != "none":
            judged, usage = judge_columns(
                kb,
                corpus,
                predictions,
                scores.per_turn,
                open_lm(cfg.judge, stack, judge_lm_overrides(cfg.judge)),
                n=cfg.judge_n,
                seed=cfg.seed,
            )
            scores.per_turn = scores.per_turn.join(judged)
            merged = aggregate(scores.per_turn, scores.per_dialogue, kb, cfg, scores.aggregate["n_missing"], ent)
            merged["n_off_target_citations"] = scores.aggregate["n_off_target_citations"]
            merged["n_ignored_predictions"] = scores.aggregate["n_ignored_predictions"]
            merged["quotes"] = scores.aggregate["quotes"]
            merged["judge_usage"] = usage
            scores.aggregate = merged
    return scores
