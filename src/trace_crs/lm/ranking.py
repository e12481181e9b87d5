"""Log-probability ranking of candidate POIs (the LM config's ranking ``mode: logprob``).

Small local models rank generatively at chance (measured: Qwen2.5-Coder-1.5B returns the
first three cards in order), so in ``logprob`` mode each candidate ``c`` is scored on its own:

    score(c) = log P("yes" | conversation, card(c), "Does this place fit the request?")

read from the first generated token's ``top_logprobs`` (all variants that strip/lower-case
to ``yes`` are summed in probability).  If no ``yes`` variant is among the top ``TOP_K``
tokens, the smallest returned logprob is used (an upper bound on the true value).  The
conversation comes first and the card last, so the llama.cpp server reuses the shared
prompt prefix across candidates.  Candidates are visited in an order shuffled with the seed
and ties keep that shuffled order, so no pool position is favoured.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from trace_crs.prompts import signature

TOP_K = 20
PROMPT_VERSION = "fits-v1"


FitsRequest = signature("fits_request", __name__)


def fits_messages(conversation: str, card: str) -> list[dict[str, str]]:
    """Chat messages for one yes/no judgement (instructions = ``FitsRequest``'s, ``prompts/fits_request.yaml``)."""
    return [
        {"role": "system", "content": f"{FitsRequest.instructions} Answer with one word: yes or no."},
        {
            "role": "user",
            "content": f"Conversation:\n{conversation}\n\nPlace:\n{card}\n\n"
            "Does this place fit the request? Answer yes or no.",
        },
    ]


def top_entries(logprobs: Any) -> list[tuple[str, float]]:
    """``(token, logprob)`` pairs of the first generated token's top list."""
    content = logprobs.get("content") if isinstance(logprobs, dict) else getattr(logprobs, "content", None)
    if not content:
        raise ValueError("LM response carries no logprobs (does the server return logprobs?)")
    first = content[0]
    top = first.get("top_logprobs") if isinstance(first, dict) else getattr(first, "top_logprobs", None)
    pairs = []
    for item in top or [first]:
        tok = item.get("token") if isinstance(item, dict) else getattr(item, "token", None)
        lp = item.get("logprob") if isinstance(item, dict) else getattr(item, "logprob", None)
        if tok is not None and lp is not None:
            pairs.append((str(tok), float(lp)))
    if not pairs:
        raise ValueError("LM response has an empty top_logprobs list")
    return pairs


def matching_logprob(pairs: Sequence[tuple[str, float]], accept: Callable[[str], bool]) -> float:
    """log Σ P(t) over the top entries ``t`` that ``accept`` takes; the smallest returned logprob
    if none (an upper bound on the true value)."""
    hits = [lp for tok, lp in pairs if accept(tok)]
    if not hits:
        return min(lp for _, lp in pairs)
    top = max(hits)
    return top + math.log(sum(math.exp(lp - top) for lp in hits))


def yes_logprob(pairs: Sequence[tuple[str, float]]) -> float:
    """log Σ P(t) over tokens ``t`` with ``t.strip().lower() == "yes"``; min logprob if none."""
    return matching_logprob(pairs, lambda tok: tok.strip().lower() == "yes")


@contextmanager
def quiet_truncation() -> Any:
    """Silence DSPy's "response was truncated" warning: a 1-token answer is truncated on purpose."""
    log = logging.getLogger("dspy.clients.lm")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def first_token(lm: Callable[..., Any], messages: list[dict[str, str]], what: str) -> dict[str, Any]:
    """The output of one cached greedy 1-token call with the top ``TOP_K`` log-probabilities
    (ValueError naming ``what`` when the LM returns none)."""
    with quiet_truncation():
        outputs = lm(messages=messages, logprobs=True, top_logprobs=TOP_K, max_tokens=1, temperature=0.0)
    first = outputs[0]
    if not isinstance(first, dict) or "logprobs" not in first:
        raise ValueError(f"LM returned no logprobs for {what}")
    return first


def score_fit(lm: Callable[..., Any], conversation: str, card: str) -> float:
    """``log P(yes)`` for one card, via one cached 1-token call with ``top_logprobs``."""
    first = first_token(lm, fits_messages(conversation, card), "the fit judgement")
    return yes_logprob(top_entries(first["logprobs"]))


def logprob_rank(
    candidates: Sequence[str],
    cards: dict[str, str],
    conversation: str,
    scorer: Callable[[str, str], float],
    seed: int,
    rejected: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[str], dict[str, float]]:
    """Rank ``candidates`` by ``scorer(conversation, card)``, descending.

    Candidates are scored in a ``seed``-shuffled order; equal scores keep that order;
    ``rejected`` POIs go last (the Trace-wide hard penalty).  Returns the ranking and scores.
    """
    order = [candidates[i] for i in np.random.default_rng(seed).permutation(len(candidates))]
    scores = {c: float(scorer(conversation, cards[c])) for c in order}
    ranked = sorted(order, key=lambda c: (c in rejected, -scores[c]))
    return ranked, scores
