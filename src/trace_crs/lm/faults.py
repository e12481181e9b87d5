"""Transient faults of an LM endpoint: classification, bounded retry with backoff, counting
(paper checklist item 8 ran the API with retries under a 256–512 semaphore).

DSPy's engine performs one attempt when ``num_retries=0`` (the setting of
:func:`trace_crs.lm.backend.build_lm`) and raises typed errors; DSPy's own retry loop would
not say which faults happened and has no jitter, so :func:`call_with_retries` retries here:

* classes (:data:`FAULT_CLASSES`): ``429`` (rate limited, no hint), ``429-retry-after``,
  ``5xx``, ``timeout``, ``connection`` (refused / reset / closed), ``garbage`` (a truncated
  or non-JSON body);
* delay of retry ``k`` (0-based): the server's ``Retry-After`` when given (capped at
  ``cap_s``), else "full jitter" ``uniform(0, min(cap_s, base_s · 2^k))``;
* at most ``retries`` retries; then the last error propagates (the caller's counted
  Popularity fallback, :mod:`trace_crs.baselines.llm_common`) and ``exhausted`` is counted.

Every fault is added to the innermost :func:`counting_faults` block of the current thread
(the runner opens one per dialogue and writes the counts beside the chunk it belongs to) and
to the process-wide :func:`process_faults`.
"""

from __future__ import annotations

import contextvars
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

FAULT_CLASSES: tuple[str, ...] = ("429", "429-retry-after", "5xx", "timeout", "connection", "garbage")
EXHAUSTED = "exhausted"
T = TypeVar("T")

_CURRENT: contextvars.ContextVar[Counter | None] = contextvars.ContextVar("trace_lm_faults", default=None)
_TOTAL: Counter = Counter()
_LOCK = threading.Lock()
_JITTER = random.Random()  # timing only: never affects an answer


def classify(exc: BaseException) -> str | None:
    """The fault class of ``exc``, or None when it is not a transient endpoint fault
    (a bad request, a missing key, a parse error of the adapter: retrying cannot help)."""
    from dspy.utils.exceptions import LMProviderError, LMRateLimitError, LMServerError, LMTimeoutError, LMTransportError

    text = str(exc).lower()
    status = getattr(exc, "status", None) or getattr(exc, "status_code", None)
    if isinstance(exc, LMRateLimitError) or status == 429:
        return "429-retry-after" if retry_after(exc) is not None else "429"
    if isinstance(exc, LMTimeoutError) or "timed out" in text or "timeout" in type(exc).__name__.lower():
        return "timeout"
    if "not json" in text or "outstanding" in text or "truncated" in text or "invalid json" in text:
        return "garbage"
    if isinstance(exc, LMServerError) or (isinstance(status, int) and 500 <= status < 600):
        return "5xx"
    if isinstance(exc, (LMTransportError, ConnectionError)):
        return "connection"
    if isinstance(exc, LMProviderError) and status is None:
        return "connection"
    return None


def retry_after(exc: BaseException) -> float | None:
    """The server's ``Retry-After`` seconds carried by ``exc`` (None if absent or not finite)."""
    value = getattr(exc, "retry_after", None)
    try:
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    return seconds if seconds is not None and 0 <= seconds < float("inf") else None


def backoff_delay(exc: BaseException, attempt: int, base_s: float, cap_s: float) -> float:
    """Seconds to wait before retry ``attempt`` (0-based), see the module docstring."""
    hint = retry_after(exc)
    if hint is not None:
        return min(hint, cap_s)
    return _JITTER.uniform(0.0, min(cap_s, base_s * 2**attempt))


def count(name: str, n: int = 1) -> None:
    """Add ``n`` faults of class ``name`` to the current block and the process total."""
    current = _CURRENT.get()
    if current is not None:
        current[name] += n
    with _LOCK:
        _TOTAL[name] += n


@contextmanager
def counting_faults() -> Iterator[Counter]:
    """Collect the faults of the LM calls made inside the block (this thread / context)."""
    counter: Counter = Counter()
    token = _CURRENT.set(counter)
    try:
        yield counter
    finally:
        _CURRENT.reset(token)


def process_faults() -> dict[str, int]:
    """Faults counted in this process so far."""
    with _LOCK:
        return dict(_TOTAL)


def call_with_retries(
    call: Callable[[], T], retries: int, base_s: float, cap_s: float, sleep: Callable[[float], None] = time.sleep
) -> T:
    """``call()``, retried on transient faults (module docstring); other errors propagate at once."""
    for attempt in range(retries + 1):
        try:
            return call()
        except Exception as exc:
            fault = classify(exc)
            if fault is None:
                raise
            count(fault)
            if attempt == retries:
                count(EXHAUSTED)
                raise
            sleep(backoff_delay(exc, attempt, base_s, cap_s))
    raise AssertionError("unreachable")  # pragma: no cover
