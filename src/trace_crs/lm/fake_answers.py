"""What the fake LM server (:mod:`trace_crs.lm.fake_server`) answers: a pure function of the
request's messages (their SHA-256), shaped so DSPy's ``ChatAdapter`` parses it.

The output fields listed in the system message ("Your output fields are:") are answered in
``[[ ## field ## ]]`` blocks — a field whose name ends in ``ids`` gets the candidate ids found in
the prompt (``[id]`` at a line start), permuted by the hash; other lists are empty, optional
values null, ``bool`` fields yes/no by the hash, and ``str`` fields a sentence that quotes the
first labelled review excerpt verbatim (``"…" [Rn]``).  A request with ``logprobs`` (the
log-prob ranking of :mod:`trace_crs.lm.ranking`) gets a one-token ``yes``/``no`` answer with
``top_logprobs``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Callable
from typing import Any

_OUTPUTS = re.compile(r"Your output fields are:\n(.*?)\nAll interactions", re.S)
_FIELD = re.compile(r"^\d+\. `(\w+)` \((.+?)\)(?::|$)", re.M)
_ID_LINE = re.compile(r"^\s*\[([^\]\s]+)\]", re.M)
_EXCERPT = re.compile(r"\[(R\d+)\][^\"\n]*\"([^\"\n]+)\"")
Reply = Callable[[list[dict[str, Any]]], str]  # the request's messages -> the reply text


def unit(*parts: object) -> float:
    """A uniform number in [0, 1) determined by ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def request_hash(body: dict[str, Any]) -> str:
    """SHA-256 of the request's messages (canonical JSON): what the answer depends on."""
    return hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()


def _value(name: str, kind: str, prompt: str, h: str) -> str:
    """The answer to one output field (see the module docstring)."""
    if kind.startswith("list"):
        if not name.endswith("ids"):
            return "[]"
        ids = list(dict.fromkeys(i for i in _ID_LINE.findall(prompt) if not re.fullmatch(r"R\d+", i)))
        random.Random(h).shuffle(ids)
        return json.dumps(ids)
    if "NoneType" in kind:
        return "null"
    if kind == "bool":
        return "true" if unit(h, name) < 0.5 else "false"
    if kind in ("int", "float"):
        return "2"
    quote = _EXCERPT.search(prompt)
    cited = f' Reviewers say "{" ".join(quote.group(2).split()[:12])}" [{quote.group(1)}].' if quote else ""
    return f"Fake answer {h[:8]}: the first place fits well.{cited}"


def answer(body: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """``(content, logprobs)`` of the deterministic answer to ``body``."""
    h = request_hash(body)
    messages = body.get("messages") or []
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    prompt = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") != "system")
    if body.get("logprobs"):
        yes = -0.05 - 3.0 * unit(h, "yes")
        no = math.log(max(1e-12, 1 - math.exp(yes)))
        token = "yes" if yes > no else "no"
        top: list[dict[str, Any]] = [
            {"token": "yes", "logprob": yes, "bytes": None},
            {"token": "no", "logprob": no, "bytes": None},
        ]
        top.sort(key=lambda t: -t["logprob"])
        return token, {"content": [{"token": token, "logprob": max(yes, no), "bytes": None, "top_logprobs": top}]}
    section = _OUTPUTS.search(system)
    if not section:
        return f"Fake answer {h[:8]}.", None
    blocks = [f"[[ ## {n} ## ]]\n{_value(n, kind, prompt, h)}" for n, kind in _FIELD.findall(section.group(1))]
    return "\n\n".join(blocks + ["[[ ## completed ## ]]"]), None


def reply_to(body: dict[str, Any], reply: Reply | None = None) -> tuple[str, dict[str, Any] | None]:
    """``(content, logprobs)``: ``reply(messages)`` (no logprobs) when given, else :func:`answer`."""
    return (reply(body.get("messages") or []), None) if reply else answer(body)
