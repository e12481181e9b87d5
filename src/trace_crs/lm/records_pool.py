"""The local servers of a block whose calls may all be recorded: started at the first call the LM
records do not answer (:mod:`trace_crs.lm.records`), so a fully replayed block starts none.

:class:`LazyPool` stands where ``open_lm`` puts a :class:`~trace_crs.lm.server.ServerPool`
(``TraceLM.endpoints``).  Its first :meth:`~LazyPool.api_base` checks the weights and enters
``shared_pool`` — in a thread of its own that lives until the block ends, because a server
child dies with the *thread* that forked it (``PR_SET_PDEATHSIG``, :mod:`trace_crs.lm.process`)
and the first missing call may come from a short-lived worker thread.  Later calls go to the
running pool (each thread bound to one server, as before).  A start that fails is remembered:
every later call raises the same error at once instead of waiting for another start, and
``open_lm`` raises it again when its block ends (:attr:`LazyPool.failure`), so a caller that
turns failed calls into fallbacks (the baselines) still fails, as when the servers started with
the block.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from trace_crs.lm.server import ServerPool


class LazyPool:
    """A :class:`ServerPool` started by the first :meth:`api_base` (module docstring).

    ``opener()`` returns the context manager that yields the running pool (``shared_pool(...)``);
    :meth:`close` leaves it (the last user stops the servers)."""

    def __init__(self, opener: Callable[[], AbstractContextManager[ServerPool]]) -> None:
        self._opener = opener
        self._lock = threading.Lock()
        self._pool: ServerPool | None = None
        self._error: BaseException | None = None  # why the servers could not start
        self._ready, self._done = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        """Whether the servers are running (a call the records did not answer came)."""
        return self._pool is not None

    @property
    def failure(self) -> BaseException | None:
        """Why the servers could not start (None: they did, or were never needed)."""
        return self._error

    def __deepcopy__(self, memo: dict) -> LazyPool:
        return self  # shared processes, never copied with an LM (``lm.copy``)

    def pool(self) -> ServerPool:
        """The running pool, started now if it is not yet."""
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("the LM block has ended: its local servers are stopped")
            if self._pool is None and self._error is None:
                self._thread = threading.Thread(target=self._hold, name="trace-lm-servers", daemon=True)
                self._thread.start()
                self._ready.wait()
            if self._error is not None:
                raise RuntimeError(f"the local LM servers could not start: {self._error}") from self._error
            assert self._pool is not None
            return self._pool

    def api_base(self) -> str:
        """The base URL of the calling thread's server (starting the servers on first use)."""
        return self.pool().api_base()

    def __len__(self) -> int:
        return len(self.pool())

    def _hold(self) -> None:
        try:
            with self._opener() as pool:
                self._pool = pool
                self._ready.set()
                self._done.wait()
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()

    def close(self) -> None:
        """Stop holding the servers (the last user of the shared pool stops them)."""
        with self._lock:
            self._done.set()
            if self._thread is not None:
                self._thread.join()
            self._pool = None
