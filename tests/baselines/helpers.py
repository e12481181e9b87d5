"""TurnContext builders for the baseline tests."""
from __future__ import annotations

from tinykb import RESTAURANTS, dialogue

from trace_crs.baselines.base import TurnContext


def first_turn(kb, text: str, persona: str = "date_night", candidates=None) -> TurnContext:
    """Context of the first recommend turn (index 3) after user turns 'Hi' and ``text``."""
    d = dialogue("crs_test_00009", ["Hi", text, "x"], ["r1", "r2"], persona_type=persona)
    return TurnContext.from_dialogue(d, 3, tuple(candidates or RESTAURANTS), kb, action="recommend")


def after_rejection(kb, text: str, rejected: str, refine: str = "Not that one.") -> TurnContext:
    """Context of the compare turn (index 5) after the user rejected ``rejected``."""
    d = dialogue("crs_test_00009", ["Hi", text, refine], [rejected, "r2"])
    return TurnContext.from_dialogue(d, 5, tuple(RESTAURANTS), kb, action="compare")
