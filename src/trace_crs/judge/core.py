"""LLM-as-evaluator: the twelve factor ratings of one transcript (seed 001 §4.1, Table 2).

Per-factor mode (the paper's): one DSPy call per (transcript, factor), :class:`RateFactor` —
the conversation log and the factor's guideline in, an integer rating 0–4 and then a brief
rationale out.  One-call mode (labelled ``one-call`` wherever it is reported; cheaper, not the paper's):
:class:`RateAllFactors` rates every factor in a single call.

A reply that cannot be parsed, or a rating outside 0–4, is retried up to ``retries`` times with a
``note`` naming the problem (the note changes the request, so a deterministic model and the
request cache do not return the same unusable reply); after that the factor is recorded as a
failure (:class:`FactorResult` with ``rating=None`` and the error) — never scored silently.
Parsing uses DSPy's ChatAdapter without its JSON fallback, so one attempt is one LM call.

Prompt layout (``core-v2``; ``core-v1`` put the guideline first and the rating last):

* the conversation is the first input field, before the factor's guideline, so the twelve
  per-factor calls of one transcript share the system message *and* the conversation as a
  token prefix, which the local llama.cpp worker keeps in its KV cache between calls (the
  calls of one transcript run in order in one thread, so on one worker);
* with a local model in parallel slots (``lm.slots`` > 0, :mod:`trace_crs.lm.batch_engine`) the
  first factor is rated alone and the other eleven concurrently (:func:`factor_workers`
  threads): the worker copies the conversation's KV cells from the first call's slot and decodes
  the eleven replies in one batch per step.  Results are kept in factor order;
* the rating is the first output field and the rationale is asked to stay brief (CoRE App. E,
  Table 20: 167–759 output tokens per factor on average): a reply cut at ``max_tokens`` still
  carries its rating, and the cut is counted (``FactorResult.truncated``);
* a reply cut before it could be parsed is retried with twice the token budget (up to
  :data:`MAX_BUDGET_FACTOR` × the LM's ``max_tokens``) and a note asking for a shorter rationale.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, cast

import dspy
from dspy.utils.exceptions import AdapterParseError

from trace_crs.judge import MODES
from trace_crs.judge.factors import FACTORS, SCORES, guideline, named_guidelines
from trace_crs.judge.geval import judge_prefix, rate_by_logprobs
from trace_crs.judge.transcript import Transcript
from trace_crs.lm.config import local_concurrency
from trace_crs.lm.usage import recording_usage
from trace_crs.prompts import signature

PROMPT_VERSION = "core-v2"
RATIONALE_WORDS = 120  # "a brief explanation" (CoRE App. D steps; App. E Table 20 lengths)
MAX_BUDGET_FACTOR = 4  # a truncated reply is retried with at most 4x the LM's max_tokens


RateFactor = signature("rate_factor", __name__)
RateAllFactors = signature("rate_all_factors", __name__)


class UnusableReply(ValueError):
    """A parsed reply whose value is unusable (a rating outside 0–4, a factor missing): retried."""


@dataclass(frozen=True)
class FactorResult:
    """One factor's outcome: a rating 0–4 with its rationale, or ``rating=None`` and the error."""

    factor: str
    rating: int | float | None  # a float only in logprob mode with the expected rating
    rationale: str | None
    attempts: int
    error: str | None = None
    truncated: int = 0  # replies (over all attempts) cut at max_tokens; the rating may still be parsed
    scores: dict[str, Any] | None = None  # logprob mode: greedy, expected, distribution, mass

    @property
    def failed_attempts(self) -> int:
        """Attempts whose reply could not be used (all of them when ``rating`` is None)."""
        return self.attempts - (self.rating is not None)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def attempt_counts(results: Mapping[str, FactorResult]) -> dict[str, dict[str, int]]:
    """Per-factor counts for a judged record (the book's failure rates): attempts made, attempts
    whose reply was unusable, and replies cut at ``max_tokens``."""
    return {
        "attempts": {n: r.attempts for n, r in results.items()},
        "failed_attempts": {n: r.failed_attempts for n, r in results.items()},
        "truncated": {n: r.truncated for n, r in results.items()},
    }


def _note(attempt: int, error: str, cut: bool = False) -> str:
    if attempt == 0:
        return ""
    why = "it was cut at the length limit" if cut else error[:200]
    return (
        f"Attempt {attempt + 1}: your previous answer could not be used ({why}). "
        f"Give the rating as one integer from 0 to 4 first, then a justification of at most {RATIONALE_WORDS} words."
    )


def _check_rating(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in SCORES:
        raise UnusableReply(f"rating {value!r} is not an integer from 0 to 4")
    return value


def with_retries(call: Callable[[str], Any], retries: int) -> tuple[Any, int, str | None]:
    """``call(note)`` until it returns without a parse error or an :class:`UnusableReply`;
    ``(result or None, attempts, last error or None)``.  Any other error propagates (a bug or
    an unreachable model is not a rating failure)."""
    error = ""
    for attempt in range(retries + 1):
        try:
            return call(_note(attempt, error)), attempt + 1, None
        except (AdapterParseError, UnusableReply) as exc:
            error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return None, retries + 1, error


@dataclass(frozen=True)
class Attempts:
    """What :func:`with_budget_retries` got: the result (None after the last failure), the number
    of attempts, the last error, and how many replies were cut at ``max_tokens``."""

    result: Any
    attempts: int
    error: str | None
    truncated: int


def with_budget_retries(call: Callable[[str, dict[str, Any]], Any], retries: int, lm: dspy.BaseLM) -> Attempts:
    """:func:`with_retries` for judge calls: ``call(note, config)`` where ``config`` holds a
    ``max_tokens`` doubled after each attempt whose reply was cut at the limit (capped at
    :data:`MAX_BUDGET_FACTOR` × the LM's own ``max_tokens``; empty when the LM states none).
    Truncation is read from the LM's usage record (:func:`trace_crs.lm.usage.recording_usage`)."""
    base = (getattr(lm, "kwargs", None) or {}).get("max_tokens")
    budget, error, cut, truncated = base, "", False, 0
    for attempt in range(retries + 1):
        if cut and base:
            budget = min(2 * cast(int, budget), MAX_BUDGET_FACTOR * base)  # budget starts at base, never None here
        config = {"max_tokens": budget} if base and budget != base else {}
        with recording_usage() as tally:
            try:
                result = call(_note(attempt, error, cut), config)
            except (AdapterParseError, UnusableReply) as exc:
                error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
                result = None
        truncated += tally.truncated
        cut = tally.truncated > 0
        if result is not None:
            return Attempts(result, attempt + 1, None, truncated)
        if cut:
            error = f"reply cut at max_tokens={budget}; {error}"
    return Attempts(None, retries + 1, error, truncated)


def strict_adapter() -> dspy.ChatAdapter:
    """ChatAdapter without the JSON fallback: one attempt is one LM call."""
    return dspy.ChatAdapter(use_json_adapter_fallback=False)


def rate_factor(
    t: Transcript, factor: str, lm: dspy.BaseLM, retries: int = 2, predict: dspy.Predict | None = None
) -> FactorResult:
    """One factor of one transcript, one DSPy call per attempt."""
    predict, log, rubric = predict or dspy.Predict(RateFactor), t.log(), guideline(factor)

    def call(note: str, config: dict[str, Any]) -> tuple[int, str]:
        with dspy.context(lm=lm, adapter=strict_adapter()):
            out = predict(conversation=log, guideline=rubric, note=note, config=config)
        return _check_rating(out.rating), str(out.rationale)

    got = with_budget_retries(call, retries, lm)
    if got.result is None:
        return FactorResult(factor, None, None, got.attempts, got.error, got.truncated)
    return FactorResult(factor, got.result[0], got.result[1], got.attempts, truncated=got.truncated)


def rate_all_in_one(
    t: Transcript,
    lm: dspy.BaseLM,
    names: tuple[str, ...] = FACTORS,
    retries: int = 2,
    predict: dspy.Predict | None = None,
) -> dict[str, FactorResult]:
    """Every factor in one call (``one-call`` mode); a reply missing any factor is retried, and
    after the last attempt the factors it still lacks are failures."""
    predict, log = predict or dspy.Predict(RateAllFactors), t.log()
    rubrics = named_guidelines(names)
    partial: dict[str, FactorResult] = {}

    def call(note: str, config: dict[str, Any]) -> dict[str, FactorResult]:
        with dspy.context(lm=lm, adapter=strict_adapter()):
            out = predict(conversation=log, guidelines=rubrics, note=note, config=config)
        ratings, rationales = dict(out.ratings or {}), dict(out.rationales or {})
        got, bad = {}, []
        for n in names:
            try:
                got[n] = FactorResult(n, _check_rating(ratings.get(n)), str(rationales.get(n, "")), 0)
            except UnusableReply as exc:
                bad.append(f"{n}: {exc}")
        partial.update(got)
        if bad:
            raise UnusableReply("; ".join(bad))
        return got

    got = with_budget_retries(call, retries, lm)
    results, attempts = got.result or partial, got.attempts
    return {
        n: (
            FactorResult(n, results[n].rating, results[n].rationale, attempts, truncated=got.truncated)
            if n in results
            else FactorResult(n, None, None, attempts, got.error, got.truncated)
        )
        for n in names
    }


class CoreJudge(dspy.Module):
    """CoRE's LLM-as-evaluator (§4.1): ``forward(transcript, lms)`` returns a ``dspy.Prediction``
    with ``results`` = {factor: :class:`FactorResult`}.  ``lms`` is one LM, or one per factor
    (the mixture of evaluators; per-factor mode only)."""

    def __init__(self, mode: str = "per-factor", retries: int = 2, rating: str = "expected") -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
        self.mode, self.retries, self.rating = mode, retries, rating
        self.rate_one, self.rate_all = dspy.Predict(RateFactor), dspy.Predict(RateAllFactors)

    def forward(self, transcript: Transcript, lms: dspy.BaseLM | Mapping[str, dspy.BaseLM]) -> dspy.Prediction:
        per_factor = lms if isinstance(lms, Mapping) else {n: lms for n in FACTORS}
        missing = [n for n in FACTORS if n not in per_factor]
        if missing:
            raise ValueError(f"no judge LM for factor(s) {missing}")
        if self.mode == "one-call":
            if len({id(lm) for lm in per_factor.values()}) != 1:
                raise ValueError(
                    "one-call mode rates every factor with one LM; a per-factor mixture needs per-factor mode"
                )
            return dspy.Prediction(
                results=rate_all_in_one(transcript, per_factor[FACTORS[0]], retries=self.retries, predict=self.rate_all)
            )
        if self.mode == "logprob":  # in factor order, in this thread: one worker keeps the shared prefix
            prefix = judge_prefix()
            return dspy.Prediction(
                results={n: rate_logprob(transcript, n, per_factor[n], self.rating, prefix) for n in FACTORS}
            )
        workers = factor_workers(per_factor)

        def rate(n: str) -> FactorResult:
            return rate_factor(transcript, n, per_factor[n], self.retries, self.rate_one)

        if workers <= 1:
            return dspy.Prediction(results={n: rate(n) for n in FACTORS})
        first = rate(FACTORS[0])  # leaves the shared prefix in a slot for the others to copy
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
            # each call in its own copy of the caller's context: the caller's usage tally sees every call
            ctxs = [contextvars.copy_context() for _ in FACTORS[1:]]
            rest = list(pool.map(lambda c, n: c.run(rate, n), ctxs, FACTORS[1:]))
        return dspy.Prediction(results=dict(zip(FACTORS, [first, *rest], strict=True)))


def rate_logprob(t: Transcript, factor: str, lm: dspy.BaseLM, rating: str, prefix: str) -> FactorResult:
    """One factor by the rating token's probabilities (:mod:`trace_crs.judge.geval`): one call."""
    got = rate_by_logprobs(t, factor, lm, rating, prefix)  # one token: "cut at max_tokens" by design, not counted
    scores = {k: got[k] for k in ("greedy", "expected", "distribution", "mass")} if got["error"] is None else None
    return FactorResult(factor, got["rating"], None, 1, got["error"], 0, scores)


def factor_workers(per_factor: Mapping[str, dspy.BaseLM]) -> int:
    """Concurrent factor calls: the slots of one local LM in parallel-slot mode, else 1."""
    cfgs = {id(lm): getattr(lm, "trace_config", None) for lm in per_factor.values()}
    cfg = next(iter(cfgs.values())) if len(cfgs) == 1 else None
    if cfg is None or not getattr(cfg, "is_local", False) or not cfg.slots:
        return 1
    return local_concurrency(cfg.n_threads, cfg.servers, cfg.slots)


def rate_transcript(
    t: Transcript,
    lms: dspy.BaseLM | Mapping[str, dspy.BaseLM],
    mode: str = "per-factor",
    retries: int = 2,
    rating: str = "expected",
) -> dict[str, FactorResult]:
    """All twelve factors of ``t`` (:class:`CoreJudge`)."""
    return CoreJudge(mode, retries, rating)(transcript=t, lms=lms).results
