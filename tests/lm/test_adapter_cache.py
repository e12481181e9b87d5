"""The system message kept per signature (lm.adapter) is DSPy's own, signature by signature."""
from __future__ import annotations

import dspy

from trace_crs.baselines.dst import ExtractStateDelta, RespondWithState
from trace_crs.baselines.llm_zero_shot import RankAndRespond
from trace_crs.lm.adapter import LenientChatAdapter


def test_cached_system_message_equals_dspy_chat_adapter():
    for sig in (RankAndRespond, ExtractStateDelta, RespondWithState):
        expected = dspy.ChatAdapter().format_system_message(sig)
        assert LenientChatAdapter().format_system_message(sig) == expected
        assert LenientChatAdapter().format_system_message(sig) == expected     # from the cache


def test_changed_signature_is_not_served_a_stale_message():
    class Ask(dspy.Signature):
        """Answer briefly."""

        question: str = dspy.InputField()
        ids: list[str] = dspy.OutputField()

    first = LenientChatAdapter().format_system_message(Ask)
    Ask.instructions = "Answer at length."       # mutated in place: the cache entry must not be reused
    second = LenientChatAdapter().format_system_message(Ask)
    assert second != first and "Answer at length." in second
    assert second == dspy.ChatAdapter().format_system_message(Ask)
    renamed = Ask.with_instructions("Be terse.")
    assert LenientChatAdapter().format_system_message(renamed) == dspy.ChatAdapter().format_system_message(renamed)
