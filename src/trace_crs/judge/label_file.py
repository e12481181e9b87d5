"""Label files as studies publish them: JSON lines, or one JSON array (CRSArena-Eval ships its
labels as one array), read record by record with the line each record starts on, so an error
still names file, line and field (:mod:`trace_crs.judge.label_map`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trace_crs.errors import DataError
from trace_crs.kb.store import iter_jsonl


def iter_records(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line, record)`` of a JSON-lines file, or of a file holding one JSON array (CRSArena-Eval
    ships one), each array element with the line it starts on; malformed JSON is a
    :class:`DataError` at its line."""
    p = Path(path)
    if not p.is_file():
        yield from iter_jsonl(p)  # its missing-file / directory errors
        return
    with open(p, "rb") as fh:
        head = fh.read(1024).decode("utf-8-sig", errors="replace").lstrip()
    if not head.startswith("["):
        yield from iter_jsonl(p)
        return
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 ({exc.reason} at byte {exc.start})", file=str(p), field="<bytes>") from None
    dec, i, line, prev = json.JSONDecoder(), text.index("[") + 1, 1, 0
    ws = re.compile(r"[ \t\r\n]*")  # JSON's whitespace; always matches

    def skip(at: int) -> int:
        m = ws.match(text, at)
        return m.end() if m else at

    def bad(at: int, msg: str) -> DataError:
        return DataError(msg, file=str(p), line=text.count("\n", 0, at) + 1, field="<json>")

    i = skip(i)
    if text.startswith("]", i):
        return
    while True:
        try:
            obj, end = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise DataError(f"malformed JSON: {exc.msg}", file=str(p), line=exc.lineno, field="<json>") from None
        line += text.count("\n", prev, i)
        prev = i
        yield line, obj
        i = skip(end)
        if text.startswith("]", i):
            if (after := skip(i + 1)) < len(text):
                raise bad(after, "text after the closing ']' of the array")
            return
        if not text.startswith(",", i):
            raise bad(i, "malformed JSON: expected ',' or ']' between array elements")
        i = skip(i + 1)
