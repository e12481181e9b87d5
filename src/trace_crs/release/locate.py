"""Where a field is written in a release file: the offset (and 1-based line) of a JSON path such
as ``[0].turns[5].quotes[1].label`` in the file's own text, so an import finding names the line
of the offending pointer (paper Appendix H; :mod:`trace_crs.release.consistency`).

One pass over the text for all paths asked: the members and elements on a path are entered, every
other value is skipped by the C JSON decoder, so a large ``crs_dataset.json`` costs about one
parse.  An object member is located at its key's opening quote, an array element at its first
character; a key written twice is located at its last occurrence (the one ``json.loads`` keeps,
so the one the import read).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

JsonPath = tuple[int | str, ...]
_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_STEP = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")
_END = object()  # a trie node's marker: a path asked for ends here


def parse_field(field: str) -> JsonPath:
    """``"[2].turns[5].q"`` -> ``(2, "turns", 5, "q")``: a finding's field as JSON path steps."""
    return tuple(int(index) if index else key for index, key in _STEP.findall(field))


def line_at(text: str, offset: int) -> int:
    """The 1-based line of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def field_offsets(text: str, paths: list[JsonPath]) -> dict[JsonPath, int]:
    """The offset in ``text`` of each path that is there (see the module docstring); a path
    not in the text is left out, and all are when the text is not JSON."""
    trie: dict[Any, Any] = {}
    for path in paths:
        node = trie
        for step in path:
            node = node.setdefault(step, {})
        node[_END] = path
    out: dict[JsonPath, int] = {}
    try:
        _walk(text, _skip(text, 0), trie, out, 0)
    except (ValueError, IndexError):
        return {}
    return out


def _skip(text: str, i: int) -> int:
    match = _WS.match(text, i)
    return match.end() if match else i


def _walk(text: str, i: int, node: dict[Any, Any], out: dict[JsonPath, int], here: int) -> int:
    """Record ``node``'s paths at ``here``, enter the value at ``i`` where ``node`` asks for a
    member or element of it; the offset after the value."""
    if _END in node:
        out[node[_END]] = here
    opening, entered = text[i], len(node) - (_END in node)
    if not entered or opening not in "[{":
        return int(_DECODER.raw_decode(text, i)[1])
    closing, k = "]" if opening == "[" else "}", 0
    i = _skip(text, i + 1)
    while text[i] != closing:
        if opening == "[":
            step, at = k, i
        else:
            at = i
            step, i = scanstring(text, i + 1)
            i = _skip(text, i)
            if text[i] != ":":
                raise ValueError(f"expected ':' at {i}")
            i = _skip(text, i + 1)
        i = _skip(text, _walk(text, i, node[step], out, at) if step in node else _DECODER.raw_decode(text, i)[1])
        k += 1
        if text[i] == ",":
            i = _skip(text, i + 1)
        elif text[i] != closing:
            raise ValueError(f"expected ',' or {closing!r} at {i}")
    return i + 1


def line_of(text: str | None, field: str) -> int | None:
    """The line of ``field`` (a finding's path) in ``text``, else of its nearest enclosing
    member that is there (a missing field is reported where its object is); None without text
    or when nothing on the path is found."""
    if not text:
        return None
    steps = parse_field(field)
    paths = [steps[:n] for n in range(len(steps), 0, -1)]
    at = field_offsets(text, paths)
    for path in paths:
        if path in at:
            return line_at(text, at[path])
    return None
