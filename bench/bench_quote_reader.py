"""Effect of the one quote reader (:mod:`trace_crs.dialogues.quote_reader`) against the canonical
straight reading (``QUOTE_RE``, every quote ``"…" [Rn]``, one label): which texts it reads
differently, by form (paper §3, App. J).  Not a timed test; read-only on its inputs.

* ``--predictions FILE…``: predictions JSON-lines files (``text`` of each turn).
* ``--lm-cache DIR``: DSPy's disk cache (``lm/backend.py``: a diskcache FanoutCache of pickled
  litellm responses).  The shard databases are *copied* to a temporary directory and read there,
  so the cache (which a running build may be filling) is never opened for writing.  The
  ``response`` output field of each cached reply (DSPy chat markers or JSON) is read; a reply the
  reader reads differently is one whose citation records (``extract_citations``) — and so
  RAG-Citation's retry check and the judge's cited reviews — may change when its run is replayed.

Counts: texts, texts with a quote either way, texts read differently, with no quote before and a
quote now, and texts with a typographic, label-first or several-label quote.

    .venv/bin/python bench/bench_quote_reader.py --predictions results/smoke/runs/*/predictions/*.jsonl
    .venv/bin/python bench/bench_quote_reader.py --lm-cache ~/.cache/trace-crs/lm
"""

from __future__ import annotations

import argparse
import collections
import json
import pickle
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

from trace_crs.dialogues.quote_reader import QUOTE_RE, TYPOGRAPHIC, quote_spans

_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]")


def count(texts: Iterator[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Per group: how the reader reads its texts compared with ``QUOTE_RE``."""
    out: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for group, text in texts:
        old = [(m.group(1), (m.group(2),), m.start()) for m in QUOTE_RE.finditer(text)]
        spans = quote_spans(text)
        new = [(q.text, q.labels, q.start) for _, _, q in spans]
        c = out[group]
        c["texts"] += 1
        c["with_quote_before"] += bool(old)
        c["with_quote_now"] += bool(new)
        c["read_differently"] += old != new
        c["no_quote_before_quote_now"] += bool(new and not old)
        c["typographic"] += any(text[q.start] in TYPOGRAPHIC for _, _, q in spans)
        c["label_first"] += any(a < q.start for a, _, q in spans)
        c["several_labels"] += any(len(q.labels) > 1 for _, _, q in spans)
    return {g: dict(sorted(c.items())) for g, c in sorted(out.items())}


def prediction_texts(paths: list[Path]) -> Iterator[tuple[str, str]]:
    for path in paths:
        with path.open(encoding="utf-8-sig") as f:
            for line in f:
                if line.strip():
                    yield f"{path.parent.parent.name}/{path.stem}", str(json.loads(line).get("text", ""))


def response_of(content: str) -> tuple[str, str] | None:
    """(output fields, the ``response`` text) of one cached reply, or None without a response."""
    fields = _FIELD.findall(content)
    if fields:
        parts = _FIELD.split(content)
        texts = [parts[i + 1] for i in range(1, len(parts) - 1, 2) if parts[i] == "response"]
        return ("+".join(fields), "\n".join(texts)) if texts else None
    m = re.search(r"\{.*\}", content, re.S)
    try:
        obj = json.loads(m.group()) if m else None
    except json.JSONDecodeError:
        return None
    if isinstance(obj, dict) and "response" in obj:
        return "json:" + "+".join(obj), str(obj["response"])
    return None


def cache_texts(cache: Path) -> Iterator[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        for db in sorted(cache.glob("*/cache.db")):
            shard = Path(tmp) / db.parent.name
            shard.mkdir()
            for f in db.parent.glob("cache.db*"):
                shutil.copy2(f, shard / f.name)
            con = sqlite3.connect(shard / "cache.db")
            for (value,) in con.execute("SELECT value FROM Cache WHERE mode = 4 AND value IS NOT NULL"):
                choices = getattr(pickle.loads(value), "choices", None) or [None]
                message = getattr(choices[0], "message", None)
                got = response_of(getattr(message, "content", None) or "")
                if got:
                    yield got
            con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--predictions", nargs="*", type=Path, default=[])
    ap.add_argument("--lm-cache", type=Path)
    args = ap.parse_args()
    report = {}
    if args.predictions:
        report["predictions"] = count(prediction_texts(args.predictions))
    if args.lm_cache:
        report["lm_cache"] = count(cache_texts(args.lm_cache.expanduser()))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
