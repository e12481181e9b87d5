"""A lenient DSPy chat adapter for small local models (an unparseable answer would send the turn to the Popularity fallback).

Small models often answer a one-field signature in plain prose, without DSPy's
``[[ ## response ## ]]`` markers.  ``LenientChatAdapter`` parses exactly like
``dspy.ChatAdapter``; only when that fails *and* the signature has a single ``str`` output
field does it take the whole completion (field markers removed, stripped) as that field.
Anything else — several outputs, typed outputs, an empty completion — still raises
``AdapterParseError`` and goes to the caller's retry / Popularity fallback.

The system message is a function of the signature alone (its fields, their types and the
instructions), and DSPy rebuilds it on every call — a pydantic JSON schema per typed field,
about a third of the CPU a request costs at paper scale (measured with cProfile).
``format_system_message`` therefore keeps the message of each signature class, checked
against the signature's instructions and field objects, so the text sent is unchanged.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

_MARKER = re.compile(r"\[\[ ## \w+ ## \]\]")
# (adapter class, signature class) -> (instructions, field objects, system message)
_SYSTEM: weakref.WeakKeyDictionary[type, dict[type, tuple[str, tuple[Any, ...], str]]] = weakref.WeakKeyDictionary()
_SYSTEM_LOCK = threading.Lock()


class LenientChatAdapter(dspy.ChatAdapter):
    """``ChatAdapter`` that accepts a bare completion for a single ``str`` output field."""

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        """DSPy's system message for ``signature``, built once per signature (module docstring)."""
        instructions, fields = signature.instructions, tuple(signature.fields.values())
        with _SYSTEM_LOCK:
            cached = _SYSTEM.get(signature, {}).get(type(self))
        if (
            cached is not None
            and cached[0] == instructions
            and len(cached[1]) == len(fields)
            and all(a is b for a, b in zip(cached[1], fields, strict=False))
        ):
            return cached[2]
        message = super().format_system_message(signature)
        with _SYSTEM_LOCK:
            _SYSTEM.setdefault(signature, {})[type(self)] = (instructions, fields, message)
        return message

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        try:
            return super().parse(signature, completion)
        except AdapterParseError:
            fields = signature.output_fields
            if len(fields) == 1:
                ((name, info),) = fields.items()
                text = _MARKER.sub("", completion or "").strip()
                if info.annotation is str and text:
                    return {name: text}
            raise
