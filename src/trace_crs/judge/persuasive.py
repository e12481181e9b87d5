"""Persuasiveness: the conventional CRS metric CoRE compares its judges with (seed 001 §4.1:
"Recall@{1, 5, 10} and Persuasiveness as our baseline metrics", Persuasiveness "proposed by
Wang et al. [89]"; Table 7's Persuasiveness row, r = 0.281 against humans).

In CoRE the simulated user gives the score after the conversation.  The seed names the metric
and its source but not its prompt or scale, so both are ours: after the conversation the user's
side is asked how persuasive the system's explanations of its recommendations were, on Wang et
al.'s three levels as we read them — 0 unpersuasive, 1 partially persuasive, 2 highly persuasive.
The answer is the rating alone (``persuasive-v2``): ``persuasive-v1`` asked for a sentence of
rationale after it, which was never kept — decode nobody reads (issue 44).
One DSPy call per transcript (``trace-crs judge core --persuasiveness``; opt-in, so a judged file
without it keeps its cache keys), retried like a factor rating
(:func:`trace_crs.judge.core.with_budget_retries`).  ``trace-crs judge agree --human`` correlates
it with the human overall score beside CoRE-Avg and Recall (Table 7).
"""

from __future__ import annotations

from typing import Any

import dspy

from trace_crs.judge.core import UnusableReply, strict_adapter, with_budget_retries
from trace_crs.judge.transcript import Transcript
from trace_crs.prompts import signature

PERSUASIVE_VERSION = "persuasive-v2"  # v2: the rating alone (v1 decoded a rationale nobody kept)
LEVELS = (0, 1, 2)


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
