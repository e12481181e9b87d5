"""Errors a ``trace-crs`` command reports without a traceback, and their exit codes.

Exit codes: 0 success, 1 internal error (a bug: traceback kept), 2 usage error (bad flags,
bad ``--set`` / config values, an ``--out`` that would overwrite an input), 3 bad data (an
input file that does not meet its contract).  A data error names file, line and field.  Two
commands add a code 4 of their own: ``evaluate`` stopped by ``--max-cost-usd`` (cli.evaluate)
and ``release import --strict`` refusing an inconsistent release (release.consistency).
"""

from __future__ import annotations


class TraceError(Exception):
    """Base of the errors the CLI prints as one line and exits with :attr:`exit_code`."""

    exit_code: int = 1


class UsageError(TraceError, ValueError):
    """A flag, config value or output path the command cannot accept (exit 2).  Also a
    ``ValueError``, so library callers can catch it the conventional way."""

    exit_code = 2


class DataError(TraceError, ValueError):
    """An input file that breaks its contract (exit 3); the message names where.  Also a
    ``ValueError``."""

    exit_code = 3

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.file, self.line, self.field = file, line, field
        where = ":".join(str(x) for x in (file, line) if x is not None)
        prefix = f"{where}: " if where else ""
        if field:
            prefix += f"field {field!r}: "
        super().__init__(prefix + message)
