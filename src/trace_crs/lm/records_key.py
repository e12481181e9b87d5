"""What identifies an LM call in the records (:mod:`trace_crs.lm.records`, "Key"): the canonical
JSON of its request, the SHA-256 of it, and the step the call is counted under.

The canonical JSON (:func:`canonical_json`) is ``json.dumps`` with sorted keys, no spaces and
UTF-8 kept: anyone can recompute a key from a record's ``request`` with the standard library.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any

STEP_ENV = "TRACE_LM_STEP"  # the pipeline step making the calls (optional; else the prompt's tag)
# never part of what a request *is*: where it is sent, with which key, how long to wait, caching
NOT_THE_REQUEST = ("api_key", "api_base", "base_url", "timeout", "cache")


def _jsonable(obj: Any) -> Any:
    """JSON for what a request may hold besides JSON types (a pydantic response format)."""
    if isinstance(obj, type) and hasattr(obj, "model_json_schema"):
        return obj.model_json_schema()
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the one spelling keys are hashed from and lines written in."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_jsonable)


def keyed_request(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` without :data:`NOT_THE_REQUEST`, as plain JSON values."""
    kept = {k: v for k, v in request.items() if k not in NOT_THE_REQUEST}
    return json.loads(canonical_json(kept))


def record_key(request: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of :func:`keyed_request` (module docstring, "Key")."""
    return hashlib.sha256(canonical_json(keyed_request(request)).encode("utf-8")).hexdigest()


_TAG = re.compile(r"\[([A-Za-z][\w.-]*(?:[ -][\w.-]+)*?[ -]v\d+|v\d+)\]")
_OUTPUTS = re.compile(r"Your output fields are:\s*((?:\d+\.\s*`\w+`.*\n?)+)")


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def step_of(messages: Any) -> str:
    """The step a call belongs to: ``TRACE_LM_STEP`` if set, else the prompt's version tag in the
    messages (``core-v2``, ``zero-shot v1``; a bare ``v1`` is prefixed with the signature's output
    fields), else ``untagged: `` and the first message's first words (at most 48 characters; a prompt
    without a tag, such as the log-prob fit question), else ``"unknown"``."""
    if os.environ.get(STEP_ENV):
        return os.environ[STEP_ENV]
    texts = [_text(m) for m in messages or ()]
    for text in texts:
        if m := _TAG.search(text):
            tag = m[1]
            if tag.startswith("v") and (fields := _OUTPUTS.search(text)):
                tag = "+".join(re.findall(r"`(\w+)`", fields[1])) + " " + tag
            return tag
    first = " ".join(texts[0].split()) if texts else ""
    if len(first) > 48:  # whole words only
        first = first[:49].rsplit(" ", 1)[0]
    return f"untagged: {first}" if first else "unknown"
