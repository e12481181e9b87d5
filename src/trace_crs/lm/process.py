"""What a child process of the local backend inherits (Linux; a no-op elsewhere).

:func:`die_with_parent`: the child is SIGKILLed when its parent dies (PR_SET_PDEATHSIG), so a
``kill -9`` leaves no orphaned server or runner process.  :func:`server_child` adds, for the
llama.cpp servers (started in a session of their own so that a terminal's Ctrl-C reaches the
run, not the model): the parent's niceness.  Under the kernel's autogroup scheduling
(``/proc/sys/kernel/sched_autogroup_enabled``, on by default on desktop and many server
kernels) CPU time is shared between sessions before ``nice`` is looked at, so a new session's
worker would take an equal share of the cores beside the user's other work even when the build
runs under ``nice -n 19``; writing the niceness to ``/proc/self/autogroup`` keeps it niced.
"""

from __future__ import annotations

import os


def die_with_parent() -> None:
    """In a child process: ask Linux to SIGKILL it when its parent dies (no orphaned servers
    or runner processes after a kill -9)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def keep_niceness(autogroup: str = "/proc/self/autogroup") -> None:
    """In a child that leads a session of its own: give its autogroup the process's niceness
    (only ever lowers its priority; a failure leaves the kernel's default)."""
    nice = os.nice(0)
    if nice <= 0:
        return
    try:
        with open(autogroup, "w") as f:
            f.write(str(nice))
    except OSError:
        pass


def server_child() -> None:
    """``preexec_fn`` of a server process (runs after ``setsid``): :func:`die_with_parent` and
    :func:`keep_niceness`.  Not for pool workers that share their parent's session: writing
    their autogroup would renice the parent's whole session."""
    die_with_parent()
    keep_niceness()
