"""Per-call LM usage: the tallies of :func:`recording_usage` blocks, the process total, the
distinct-request ledgers of ``trace-crs evaluate --estimate``, and the usage store beside DSPy's
cache (what a cache replay reports; :mod:`trace_crs.lm.backend` module docstring).

:class:`trace_crs.lm.backend.TraceLM` counts each call with :func:`count_call`; nothing here
sends a request.  The cost tables and the oracle knapsack read these numbers.
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import diskcache

_TALLY_ADD = threading.Lock()


@dataclass
class TokenCost:
    """What LM calls cost: prompt and completion tokens, and dollars (0 for a local model)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class UsageTally(TokenCost):
    """Token usage, cost and model seconds summed over the LM calls of one block."""

    calls: int = 0
    cache_hits: int = 0
    model_s: float = 0.0  # seconds the model took, as measured when each call was made
    replayed_s: float = 0.0  # the part of model_s that this block replayed from the cache
    truncated: int = 0  # replies cut at max_tokens (finish_reason "length")

    def add(self, usage: dict[str, float], cache_hit: bool, replayed: bool, truncated: bool = False) -> None:
        with _TALLY_ADD:  # concurrent calls of one block (the judge's factor calls) add to one tally
            self._add(usage, cache_hit, replayed, truncated)

    def _add(self, usage: dict[str, float], cache_hit: bool, replayed: bool, truncated: bool) -> None:
        self.calls += 1
        self.cache_hits += int(cache_hit)
        self.truncated += int(truncated)
        self.prompt_tokens += int(usage["prompt_tokens"])
        self.completion_tokens += int(usage["completion_tokens"])
        self.cost_usd += float(usage["cost_usd"])
        self.model_s += float(usage["latency_s"])
        self.replayed_s += float(usage["latency_s"]) if replayed else 0.0


def measured_usage(response: Any, latency_s: float, cost_usd: float | None = None) -> dict[str, float]:
    """Tokens, cost and seconds of one response that went to the model; ``cost_usd`` is DSPy's
    price estimate of the call (litellm's ``response_cost`` when the response carries one)."""
    usage = getattr(response, "usage", None) or {}
    get = usage.get if isinstance(usage, dict) else (lambda k, d=0: getattr(usage, k, d))
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = cost_usd if cost_usd is not None else hidden.get("response_cost")
    return {
        "prompt_tokens": int(get("prompt_tokens", 0) or 0),
        "completion_tokens": int(get("completion_tokens", 0) or 0),
        "cost_usd": float(cost or 0.0),
        "latency_s": float(latency_s),
    }


def was_truncated(response: Any) -> bool:
    """True when the (first) choice of ``response`` stopped at ``max_tokens`` (``finish_reason``
    ``"length"``); read from the response itself, so a cache replay reports it too."""
    choices = getattr(response, "choices", None) or (response.get("choices") if isinstance(response, dict) else None)
    if not choices:
        return False
    first = choices[0]
    reason = first.get("finish_reason") if isinstance(first, dict) else getattr(first, "finish_reason", None)
    return reason == "length"


# The open ``recording_usage()`` blocks of this thread/context, outermost first: a call counts in
# every one of them, so a nested block (one judge attempt) never hides usage from its caller.
_TALLY: contextvars.ContextVar[tuple[UsageTally, ...]] = contextvars.ContextVar("trace_lm_tally", default=())
_PROCESS, _PROCESS_LOCK = UsageTally(), threading.Lock()
_LEDGERS: list[tuple[set[str], UsageTally]] = []


def process_usage() -> UsageTally:
    """A copy of the usage of every :class:`TraceLM` call made in this process so far."""
    with _PROCESS_LOCK:
        return dataclasses.replace(_PROCESS)


@contextmanager
def distinct_requests() -> Iterator[UsageTally]:
    """The usage of the first call of each distinct request made while the block is open, in
    any thread of the process — what a run with an empty LM cache sends to the model
    (``trace-crs evaluate --estimate``)."""
    entry: tuple[set[str], UsageTally] = (set(), UsageTally())
    with _PROCESS_LOCK:
        _LEDGERS.append(entry)
    try:
        yield entry[1]
    finally:
        with _PROCESS_LOCK:
            _LEDGERS.remove(entry)


@contextmanager
def recording_usage() -> Iterator[UsageTally]:
    """Collect the usage of every :class:`TraceLM` call made inside the block (blocks nest: a
    call counts in the innermost block and in every enclosing one)."""
    tally = UsageTally()
    token = _TALLY.set((*_TALLY.get(), tally))
    try:
        yield tally
    finally:
        _TALLY.reset(token)


@cache
def usage_store(cache_dir: str) -> diskcache.Cache:
    """The measured usage of every request sent to a model, beside DSPy's cache in ``cache_dir``."""
    return diskcache.Cache(str(Path(cache_dir).expanduser().resolve() / "usage"))


def open_tallies() -> tuple[UsageTally, ...]:
    """The tallies of the ``recording_usage()`` blocks open in this thread/context (outermost first)."""
    return _TALLY.get()


def count_call(key: str, usage: dict[str, float], cache_hit: bool, replayed: bool, truncated: bool) -> None:
    """Add one call (request ``key``) to every open block's tally, to the process total and to
    every distinct-request ledger that has not seen ``key`` yet."""
    for tally in _TALLY.get():
        tally.add(usage, cache_hit=cache_hit, replayed=replayed, truncated=truncated)
    with _PROCESS_LOCK:
        _PROCESS.add(usage, cache_hit=cache_hit, replayed=replayed, truncated=truncated)
        for seen, tally_ in _LEDGERS:
            if key not in seen:
                seen.add(key)
                tally_.add(usage, cache_hit=cache_hit, replayed=replayed, truncated=truncated)
