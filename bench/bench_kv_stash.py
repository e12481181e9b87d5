"""Prompt tokens the local worker reads, with and without its KV stash (``lm.kv_stash``), on the
requests a profile's build actually made (not a timed test: token counts, no seconds).

Each step's recorded requests (``data/lm-records/<profile>/``, in the order they were recorded)
are formatted and tokenized exactly as the worker does (the model's chat handler on a
vocabulary-only load of its GGUF), then played through the worker's own reuse rules —
:func:`trace_crs.lm.llama_requests.reusable_prefix` and :class:`trace_crs.lm.kv_stash.KVStash`'s
``prepare`` with the copies into and out of llama.cpp left out — once with the stash off and once
with it on; and, as the floor, with every earlier prompt of the step kept (no memory bound): what
is read even then is due to the prompts' layout.  Counted per step and call kind (1-token fit questions, generations): prompt tokens,
tokens evaluated after the reused prefix.  One server in record order is assumed (the build ran
two, whose calls are interleaved in the records); the counts depend on no machine.

    python bench/bench_kv_stash.py --out results/bench/kv_stash.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from trace_crs.lm.kv_stash import ENTRIES, Entry, KVStash
from trace_crs.lm.llama_requests import (
    PROMPT_ROWS,
    aligned,
    chat_handler,
    common_prefix,
    completion_kwargs,
    parse_chat_request,
    reusable_prefix,
)
from trace_crs.lm.records import iter_records

STEPS = ("run/closed_llm", "run/open_llm", "abstention-llm", "score/closed_llm")


class Tokens:
    """The part of a ``Llama`` the reuse rules read: its cached token ids and prompt rows."""

    class _Ctx:
        def kv_cache_seq_rm(self, *args: Any) -> bool:
            return True

    def __init__(self, n_ctx: int = 32768) -> None:
        self.input_ids, self.n_tokens, self._ctx = np.zeros(n_ctx, dtype=np.intc), 0, self._Ctx()

    @property
    def _input_ids(self) -> np.ndarray:
        return self.input_ids[: self.n_tokens]

    def read(self, prompt: list[int], decoded: int) -> None:
        """The cache after answering: the prompt rows, then ``decoded`` generated rows."""
        n = len(prompt)
        self.input_ids[:n], self.input_ids[n : n + decoded] = prompt, -1
        self.n_tokens = n + decoded
        setattr(self, PROMPT_ROWS, n)


class CountingStash(KVStash):
    """The worker's stash without llama.cpp: what it keeps is only which rows it holds."""

    def copy_out(self, llama: Any) -> Any:
        return b""

    def copy_in(self, llama: Any, entry: Entry) -> bool:
        return True


class Capture:
    """Stands in for the ``Llama`` the chat handler calls: keeps the prompt tokens, answers nothing."""

    def __init__(self, llama: Any) -> None:
        self._llama = llama
        self.prompt: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, prompt: list[int], **kw: Any) -> dict[str, Any]:
        self.prompt = list(prompt)
        choice = {"text": "", "index": 0, "logprobs": None, "finish_reason": "stop"}
        usage = {"prompt_tokens": len(prompt), "completion_tokens": 0, "total_tokens": len(prompt)}
        return {"id": "x", "object": "text_completion", "created": 0, "model": "m", "choices": [choice], "usage": usage}


def prompt_tokens(llama: Any, messages: list[dict[str, Any]]) -> list[int]:
    """The tokens the worker's chat handler would pass to ``create_completion`` for ``messages``."""
    req, _ = parse_chat_request({"model": "m", "messages": messages, "max_tokens": 8})
    capture = Capture(llama)
    chat_handler(llama)(llama=capture, **completion_kwargs(req))
    return capture.prompt


def play(calls: list[tuple[str, list[int], int]], entries: int) -> dict[str, dict[str, int]]:
    """Prompt and evaluated tokens per call kind when ``calls`` reach one worker in order."""
    cache, stash, out = Tokens(), CountingStash(entries), defaultdict(lambda: defaultdict(int))
    for kind, prompt, decoded in calls:
        stash.prepare(cache, prompt)
        kept = reusable_prefix(cache, prompt)
        out[kind]["calls"] += 1
        out[kind]["prompt_tokens"] += len(prompt)
        out[kind]["evaluated_tokens"] += len(prompt) - kept
        out[kind]["restored_tokens"] += stash.restored
        cache.read(prompt, decoded)
    return {k: dict(v) for k, v in out.items()}


def unbounded(calls: list[tuple[str, list[int], int]]) -> dict[str, dict[str, int]]:
    """Tokens evaluated if every earlier prompt's rows were kept (no memory bound): the least any
    cache can read with these prompts; what is read even then is due to their layout."""
    seen: list[np.ndarray] = []
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for kind, prompt, _ in calls:
        tokens = np.asarray(prompt, dtype=np.intc)
        kept = max((aligned(common_prefix(e, tokens), len(tokens)) for e in seen), default=0)
        out[kind]["calls"] += 1
        out[kind]["prompt_tokens"] += len(prompt)
        out[kind]["evaluated_tokens"] += len(prompt) - kept
        seen.append(tokens)
    return {k: dict(v) for k, v in out.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", default="data/lm-records/default")
    p.add_argument("--steps", nargs="+", default=list(STEPS), help="step prefixes (records' `step` field)")
    p.add_argument("--entries", type=int, default=ENTRIES, help="stash size of the 'on' arm")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    from llama_cpp import Llama

    by_model: dict[str, Any] = {}
    calls: dict[str, list[tuple[str, list[int], int]]] = defaultdict(list)
    records = sorted(iter_records(args.records), key=lambda r: r["date"])
    for rec in records:
        step = next((s for s in args.steps if rec["step"] == s or rec["step"].startswith(s + "/")), None)
        if step is None:
            continue
        weights = rec["model"].split("/")[-1].split("-sha256-")[0]
        if weights not in by_model:
            by_model[weights] = Llama(f"models/{weights}.gguf", vocab_only=True, verbose=False)
        kind = "fit" if rec["request"].get("max_tokens") == 1 else "generation"
        tokens = prompt_tokens(by_model[weights], rec["request"]["messages"])
        calls[f"{step} ({weights})"].append((kind, tokens, int(rec["usage"].get("completion_tokens") or 0)))
    result: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "records": args.records,
        "entries": args.entries,
        "assumption": "one worker, calls in record order",
        "conditions": "token counts of committed LM records; nothing timed",
        "steps": {},
    }
    for step, seq in calls.items():
        off, on, least = play(seq, 0), play(seq, args.entries), unbounded(seq)
        result["steps"][step] = {"off": off, "on": on, "unbounded": least}
        for kind in off:
            n = off[kind]["prompt_tokens"]
            shares = [arm[kind]["evaluated_tokens"] / n for arm in (off, on, least)]
            print(
                f"{step:55s} {kind:10s} prompt {n:9d}  off {shares[0]:.2f}  on {shares[1]:.2f}  unbounded {shares[2]:.2f}"
            )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(args.out).with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    tmp.replace(args.out)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
