"""Persuasiveness: the conventional CRS metric CoRE compares its judges with (seed 001 §4.1:
"Recall@{1, 5, 10} and Persuasiveness as our baseline metrics", Persuasiveness "proposed by
Wang et al. [89]"; Table 7's Persuasiveness row, r = 0.281 against humans).

In CoRE the simulated user gives the score after the conversation.  The seed names the metric
and its source but not its prompt or scale, so both are ours: after the conversation the user's
side is asked how persuasive the system's explanations of its recommendations were, on Wang et
al.'s three levels as we read them — 0 unpersuasive, 1 partially persuasive, 2 highly persuasive.
The answer is the rating alone (``persuasive-v2``): ``persuasive-v1`` asked for a sentence of
rationale after it, which was never kept — decode nobody reads (issue 44).
In the logprob judge (``--mode logprob``, ``persuasive-v3``) the question is asked like a factor's:
after the same system message and conversation log as the twelve factor calls
(:func:`trace_crs.judge.geval.log_question`), so the worker reads only the question's few tokens
instead of the whole conversation again in another prompt (issue 44: "prefill is never
repeated"; ``persuasive-v2`` there was a third of a live transcript's model time), and the rating
is read from the digits' probabilities (:func:`trace_crs.judge.geval.rate_messages`; the
judge's ``--rating``: the expected level in [0, 2] or the most probable one).  Otherwise
one DSPy call per transcript (``trace-crs judge core --persuasiveness``; opt-in, so a judged file
without it keeps its cache keys), retried like a factor rating
(:func:`trace_crs.judge.core.with_budget_retries`).  ``trace-crs judge agree --human`` correlates
it with the human overall score beside CoRE-Avg and Recall (Table 7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dspy

from trace_crs.judge.core import UnusableReply, strict_adapter, with_budget_retries
from trace_crs.judge.geval import log_question, rate_messages
from trace_crs.judge.transcript import Transcript
from trace_crs.prompts import signature

PERSUASIVE_VERSION = "persuasive-v2"  # v2: the rating alone (v1 decoded a rationale nobody kept)
LOGPROB_VERSION = "persuasive-v3"  # the logprob judge's: a question after the factor calls' shared prefix
LEVELS = (0, 1, 2)
QUESTION = (
    "As the user in this conversation: how persuasive were the system's explanations of its recommendations, "
    "as they would convince you to accept them (0 = unpersuasive, 1 = partially persuasive, "
    "2 = highly persuasive)? Persuasiveness score (0-2):"
)


def persuasive_version(mode: str) -> str:
    """The prompt version a judge in ``mode`` rates persuasiveness with."""
    return LOGPROB_VERSION if mode == "logprob" else PERSUASIVE_VERSION


def rate_persuasiveness_logprob(t: Transcript, lm: Callable[..., Any], rating: str, prefix: str) -> dict[str, Any]:
    """``persuasive-v3``: one 1-token call sharing the factor calls' prefix (``prefix`` =
    :func:`trace_crs.judge.geval.judge_prefix`); the same keys as :func:`rate_persuasiveness`."""
    got = rate_messages(log_question(prefix, t.log(), QUESTION), lm, rating, LEVELS)
    return {"rating": got["rating"], "attempts": 1, "truncated": False, "error": got["error"]}


RatePersuasiveness = signature("rate_persuasiveness", __name__)


def rate_persuasiveness(t: Transcript, lm: dspy.BaseLM, retries: int = 2) -> dict[str, Any]:
    """``{"rating": 0-2 | None, "attempts", "truncated", "error"}`` of one transcript."""
    predict, log = dspy.Predict(RatePersuasiveness), t.log()

    def call(note: str, config: dict[str, Any]) -> int:
        note = note.replace("one integer from 0 to 4", "one integer: 0, 1 or 2")  # the re-ask note of core
        with dspy.context(lm=lm, adapter=strict_adapter()):
            pred = predict(conversation=log, note=note, config=config)
        value = pred.rating
        if isinstance(value, bool) or not isinstance(value, int) or value not in LEVELS:
            raise UnusableReply(f"persuasiveness {value!r} is not 0, 1 or 2")
        return value

    got = with_budget_retries(call, retries, lm)
    return {"rating": got.result, "attempts": got.attempts, "truncated": got.truncated, "error": got.error}
