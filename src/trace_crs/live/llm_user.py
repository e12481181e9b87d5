"""The optional LLM user simulator (the live loop's contract: "an LLM simulator (DSPy) as an
option"; TravelBench simulates its user with an LLM, seed 003 §3).

:class:`LLMUser` is the template user (:class:`~trace_crs.live.simulator.TemplateUser`) whose
sentences a language model rewrites in its own words: what the user decides — which preference
it reveals, whether it accepts (``kb.satisfaction``), when it stops — stays the template's, so
the live metrics mean the same with either simulator.  That includes how it reads a system's
question (:mod:`trace_crs.live.reading`, run on the system's text before any rewrite): which
facets it answers, "no preference", or its next preference — the LM only rewords that answer.
Only the surface text changes, which tests whether a baseline copes with phrasing outside the
simulator's paraphrase bank.  The rewrite is one DSPy step (:class:`RewriteTurn`) run under
``dspy.context(lm=...)`` with the LM of :mod:`trace_crs.lm.backend`, so every call is cached
on disk like every other LM call.  Unlike the template user, an LM may drift: it is asked to
keep every request and place name and to add none, but nothing checks it, so the "states only
its profile" guarantee is the template's alone.  A rewrite that comes back empty or drops the
rejected POI's name (the system reads rejections by name, :attr:`TurnContext.rejected_poi_ids`)
keeps the template sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import dspy

from trace_crs.live.simulator import TemplateUser
from trace_crs.prompts import signature

RewriteTurn = signature("rewrite_turn", __name__)


class Rewriter(dspy.Module):
    """One rewrite of one user message."""

    def __init__(self) -> None:
        super().__init__()
        self.rewrite = dspy.Predict(RewriteTurn)

    def forward(self, message: str) -> dspy.Prediction:
        return self.rewrite(message=message)


@dataclass
class LLMUser(TemplateUser):
    """A template user whose turns ``lm`` rewrites (decisions unchanged)."""

    lm: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.lm is None:
            raise ValueError("LLMUser needs an lm (a dspy.LM, e.g. from trace_crs.lm.backend.open_lm)")
        self.rewriter = Rewriter()

    def _rewritten(self, turn: dict[str, Any]) -> dict[str, Any]:
        with dspy.context(lm=self.lm):
            text = " ".join(str(self.rewriter(message=turn["text"]).rewritten or "").split())
        names = [self.kb.pois[p].name for p in turn["referenced_poi_ids"] if p in self.kb.pois]
        if text and all(n.casefold() in text.casefold() for n in names):
            turn = {**turn, "text": text}
        return turn

    def open(self) -> dict[str, Any]:
        return self._rewritten(super().open())

    def respond(self, system_turn: Mapping[str, Any], turn_index: int) -> dict[str, Any]:
        return self._rewritten(super().respond(system_turn, turn_index))
