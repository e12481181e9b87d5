"""A scripted system for the live-loop tests: its answers are chosen by the test."""
from __future__ import annotations

from typing import Callable

from trace_crs.baselines.base import BaselineOutput, TurnContext


class Scripted:
    """A system that ranks first whatever ``pick(ctx)`` returns (``None``: it abstains), and
    records every context it was given."""

    name = "scripted"

    def __init__(self, pick: Callable[[TurnContext], str | None]) -> None:
        self.pick = pick
        self.seen: list[TurnContext] = []

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        self.seen.append(ctx)
        top = self.pick(ctx)
        if top is None:
            return BaselineOutput([], "[Unsolved] I cannot help with that.")
        rest = [c for c in ctx.candidates if c != top]
        return BaselineOutput([top, *rest], f"Try {ctx.kb.pois[top].name}.")
