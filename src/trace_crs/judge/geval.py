"""CoRE rated from the rating token's probabilities (mode ``logprob``, prompt ``core-v3``).

G-Eval's scoring (Liu et al. 2023, "form-filling with probabilities"): the judge is asked for the
score only, and instead of the one sampled digit the record keeps the model's distribution over
the five rating tokens ``0``–``4`` at the first answer position, read from ``top_logprobs``:

* ``expected`` — Σ s · p(s) / Σ p(s), the expected score under that distribution (a number in
  [0, 4]; a judge that is "almost sure it is a 4" and one that hesitates between 2 and 4 no
  longer collapse onto the same integer);
* ``greedy`` — the most probable of the five rating tokens (what a rating-only greedy decode
  returns whenever the model's first token is a digit).

No rationale is decoded: one output token per factor (``rationale`` is ``None`` in the record).
The probability mass the five digits hold (``mass``) is kept: a low mass means the model wanted
to say something else.  A reply whose top list holds no digit at all is a failure
(``rating=None``), never a guessed score; re-asking a deterministic model the same question would
give the same list, so there are no retries.

Prompt layout — what every call shares comes first, so the llama.cpp worker keeps it in its KV
cache (issue 44, item 5): the system message is the instructions and all twelve guidelines
(identical for every transcript of a domain), the user message the conversation log and then the
factor's short question.  The twelve calls of a transcript differ only in their last ~25 tokens;
consecutive transcripts on one worker differ after the system message.  The question is the
factor's label and the scale (``Coherence score (0-4):``); the system message says how to read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from trace_crs.judge import RATINGS
from trace_crs.judge.domain import check_localised, current, localise
from trace_crs.judge.factors import FACTORS, SCORES, factors, named_guidelines
from trace_crs.judge.transcript import Transcript
from trace_crs.lm.ranking import TOP_K, first_token, top_entries
from trace_crs.prompts import signature

PROMPT_VERSION = "core-v3"
DIGITS = 4  # rounding of probabilities and expected scores in records

RateFactorScore = signature("rate_factor_score", __name__)


def judge_prefix(names: Sequence[str] = FACTORS) -> str:
    """The system message of every call: instructions and all guidelines, in the current domain."""
    instructions = check_localised(localise(RateFactorScore.instructions), current())
    return f"{instructions}\n\n{named_guidelines(names)}"


def question(factor: str) -> str:
    """The factor's question, the only text that differs between a transcript's calls: a handful
    of tokens, so that a transcript costs little more than its conversation's own prefill."""
    return f"{factors()[factor].label} score (0-4):"


def factor_messages(prefix: str, log: str, factor: str) -> list[dict[str, str]]:
    return log_question(prefix, log, question(factor))


def log_question(prefix: str, log: str, text: str) -> list[dict[str, str]]:
    """The shared system message, the conversation log, then the question ``text`` (the suffix)."""
    return [{"role": "system", "content": prefix}, {"role": "user", "content": f"{log}\n\n{text}"}]


def rating_distribution(
    pairs: Sequence[tuple[str, float]], scores: Sequence[int] = SCORES
) -> tuple[list[float], float] | None:
    """``(p(s) for s in scores, normalised over those digits; their total mass)`` from a top-logprob
    list (``scores``: 0..4, or a shorter scale such as persuasiveness' 0..2); ``None`` when no
    rating digit is among the listed tokens.  Token variants that strip to the same digit
    (``"4"``, ``" 4"``) are summed."""
    probs = [0.0] * len(scores)
    for token, lp in pairs:
        text = token.strip()
        if len(text) == 1 and text.isdigit() and int(text) in scores:
            probs[list(scores).index(int(text))] += math.exp(lp)
    mass = sum(probs)
    if mass <= 0.0:
        return None
    return [p / mass for p in probs], mass


def expected_score(dist: Sequence[float], scores: Sequence[int] = SCORES) -> float:
    return sum(s * p for s, p in zip(scores, dist, strict=True))


def greedy_score(dist: Sequence[float], scores: Sequence[int] = SCORES) -> int:
    """The most probable rating (ties: the lower score, so no tie favours a high rating)."""
    return max(scores, key=lambda s: (dist[list(scores).index(s)], -s))


def rate_by_logprobs(
    t: Transcript, factor: str, lm: Callable[..., Any], rating: str, prefix: str | None = None
) -> dict[str, Any]:
    """One factor of ``t``: ``{"rating", "greedy", "expected", "distribution", "mass", "error"}``."""
    return rate_messages(factor_messages(prefix or judge_prefix(), t.log(), factor), lm, rating)


def rate_messages(
    messages: list[dict[str, str]], lm: Callable[..., Any], rating: str, scores: Sequence[int] = SCORES
) -> dict[str, Any]:
    """The rating of one question whose answer is a digit of ``scores`` (one 1-token call)."""
    if rating not in RATINGS:
        raise ValueError(f"rating: expected one of {RATINGS}, got {rating!r}")
    first = first_token(lm, messages, "the judge's rating (an API model without logprobs: use --mode per-factor)")
    got = rating_distribution(top_entries(first["logprobs"]), scores)
    if got is None:
        text = first.get("text", "")
        return {"rating": None, "error": f"no rating digit among the top {TOP_K} first tokens (reply {text!r:.40})"}
    dist, mass = got
    greedy, expected = greedy_score(dist, scores), round(expected_score(dist, scores), DIGITS)
    return {
        "rating": expected if rating == "expected" else greedy,
        "greedy": greedy,
        "expected": expected,
        "distribution": [round(p, DIGITS) for p in dist],
        "mass": round(mass, DIGITS),
        "error": None,
    }
