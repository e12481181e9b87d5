"""The ``[Ask]`` rule, stated to an LLM baseline in the live loop only (CoRE's Proactiveness,
seed 001 Table 1; TravelBench's multi-turn subtask, seed 003 §3: the assistant may ask the user
for what it needs, and the user answers from its profile).

A replayed turn cannot ask (the reference conversation goes on whatever the system says), so the
rule is off by default and a replay prompt is unchanged (same LM cache keys).  The live loop turns
it on for one answer at a time (:func:`may_ask`, :class:`trace_crs.live.ask.Asking`) while the
system still has a question left.  The rule is appended to the action instruction as one separate,
marked sentence, like TravelBench's ``[Unsolved]`` rule
(:func:`trace_crs.baselines.llm_common.instruction`); the model writes the question in its own
words after the marker, and the live loop reads any reply carrying ``[Ask]`` as an
``ask_preference`` turn (:func:`trace_crs.live.ask.asks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ASK_MARKER = "[Ask]"
ASK_RE = re.compile(r"\[\s*ask\s*\]", re.IGNORECASE)
ASK_RULE = (
    "Rule [Ask]: if a preference the traveler has not stated would change which place fits best (for example "
    "budget, noise, atmosphere, style or amenities), you may ask instead of recommending: answer [Ask] (as the "
    "ranking and at the start of the reply) followed by one short question about that preference."
)
MAY_ASK: ContextVar[bool] = ContextVar("may_ask", default=False)


@contextmanager
def may_ask(allowed: bool = True) -> Iterator[None]:
    """State the ``[Ask]`` rule in the LLM instructions built inside this block (or not)."""
    token = MAY_ASK.set(allowed)
    try:
        yield
    finally:
        MAY_ASK.reset(token)
