"""`trace-crs evaluate` commands (placeholder until its issue lands)."""
from __future__ import annotations


def register(subparsers) -> None:  # noqa: ANN001
    """Register nothing yet."""
