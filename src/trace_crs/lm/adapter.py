"""A lenient DSPy chat adapter for small local models (issue 4 item 3: "unparseable output").

Small models often answer a one-field signature in plain prose, without DSPy's
``[[ ## response ## ]]`` markers.  ``LenientChatAdapter`` parses exactly like
``dspy.ChatAdapter``; only when that fails *and* the signature has a single ``str`` output
field does it take the whole completion (field markers removed, stripped) as that field.
Anything else — several outputs, typed outputs, an empty completion — still raises
``AdapterParseError`` and goes to the caller's retry / Popularity fallback.
"""
from __future__ import annotations

import re
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

_MARKER = re.compile(r"\[\[ ## \w+ ## \]\]")


class LenientChatAdapter(dspy.ChatAdapter):
    """``ChatAdapter`` that accepts a bare completion for a single ``str`` output field."""

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        try:
            return super().parse(signature, completion)
        except AdapterParseError:
            fields = signature.output_fields
            if len(fields) == 1:
                (name, info), = fields.items()
                text = _MARKER.sub("", completion or "").strip()
                if info.annotation is str and text:
                    return {name: text}
            raise
