"""A few earlier prompts' KV rows kept in host memory, so a prompt that returns is not read again.

The one-sequence worker (:mod:`trace_crs.lm.llama_worker`) has one KV cache, and a request
reuses only the prefix it shares with the request just before it
(:func:`~trace_crs.lm.llama_requests.reusable_prefix`).  The LLM baselines alternate two prompt
families on one server: a turn's 1-token fit questions (one system message, the conversation,
one card each) and its reply (DSPy's system message, the conversation, the top cards).  Each
switch of family discarded the cache, so a dialogue's reply call re-read the system message and
the whole conversation that the same server had read one turn earlier (measured on the default
``run/closed_llm`` records: reply calls evaluated 951 of their 1,097 prompt tokens, while 59 % of
their characters were a prefix of an earlier reply prompt of the same baseline).

:class:`KVStash` keeps the prompt rows of up to :data:`ENTRIES` earlier prompts (llama.cpp's
``llama_state_seq_get_data`` of sequence 0, about 12 KB a token for Qwen2.5-0.5B) and, before a
request, puts back the one that shares the longest prefix with it when that saves at least
:data:`MIN_GAIN` tokens over the cache as it stands.  The current cache is stashed only when the
new request would discard most of it; a stashed prompt that shares at least half of itself with
a newly stashed one is dropped for it (the same conversation further on, or the next card of a
turn), and at most :data:`BUDGET` bytes are kept.

Replies do not change: a stashed row was read as a prompt row (decoded rows are dropped before
stashing), it is restored byte for byte into the same cells, and the restored prefix is cut to a
multiple of the model's reuse block (:func:`~trace_crs.lm.llama_requests.block_of`) exactly as the cache's own prefix is;
``tests/lm/test_kv_stash.py`` compares the answers with a fresh server's.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from trace_crs.lm.llama_requests import PROMPT_ROWS, aligned, block_of, common_prefix, reusable_prefix

ENTRIES = 32  # prompts kept per worker (LRU): a live round puts ~10 conversations on each server, 2 prompts each
BUDGET = 1 << 30  # bytes kept per worker at most (oldest dropped first): ~32 × 1,300 tokens × 12 KB for the 0.5B model
MIN_GAIN = 64  # tokens a restore must save over the live cache (a restore costs a copy, not a read)
MIN_ROWS = 128  # shorter caches are not worth stashing


@dataclass
class Entry:
    tokens: np.ndarray  # the prompt rows' token ids
    data: Any  # llama_state_seq_get_data of sequence 0, cut to those rows (KVStash.copy_out)


class KVStash:
    """Earlier prompts' KV rows of one ``Llama`` (module docstring)."""

    def __init__(self, entries: int = ENTRIES) -> None:
        self.entries: list[Entry] = []
        self.size = entries
        self.restored = 0  # rows put back for the last prepared request (the worker's timings)

    def prepare(self, llama: Any, prompt: list[int]) -> None:
        """Before ``llama`` reads ``prompt``: stash the live cache if the prompt would discard most
        of it, and restore the stashed prompt that shares the most with it if that saves enough."""
        self.restored = 0
        if not self.size:
            return
        tokens = np.asarray(prompt, dtype=np.intc)
        rows = min(int(llama.n_tokens), int(getattr(llama, PROMPT_ROWS, 0)))
        live = np.asarray(llama.input_ids[:rows], dtype=np.intc)
        keep = reusable_prefix(llama, prompt)
        if rows >= MIN_ROWS and keep < rows // 2:
            self._stash(llama, live)
        best, gain = None, keep + MIN_GAIN
        for entry in self.entries:
            shared = aligned(common_prefix(entry.tokens, tokens), len(tokens), block_of(llama))
            if shared >= gain:
                best, gain = entry, shared
        if best is not None:
            self._restore(llama, best)

    def _stash(self, llama: Any, live: np.ndarray) -> None:
        llama._ctx.kv_cache_seq_rm(-1, len(live), -1)  # decoded rows are never reused (reusable_prefix)
        llama.n_tokens = len(live)
        data = self.copy_out(llama)
        if data is None:
            return  # llama.cpp could not copy the sequence: nothing stashed, nothing lost
        # a stashed prompt that this one extends, or mostly repeats, is dropped for it
        self.entries = [e for e in self.entries if common_prefix(e.tokens, live) < len(e.tokens) // 2]
        self.entries = [*self.entries, Entry(live.copy(), data)][-self.size :]
        while len(self.entries) > 1 and sum(len(e.data) for e in self.entries) > BUDGET:
            self.entries.pop(0)

    def _restore(self, llama: Any, entry: Entry) -> None:
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        llama.n_tokens = 0
        if not self.copy_in(llama, entry):
            llama._ctx.kv_cache_seq_rm(-1, 0, -1)  # not restored: the request reads its whole prompt
            setattr(llama, PROMPT_ROWS, 0)
            return
        n = len(entry.tokens)
        llama.input_ids[:n] = entry.tokens
        llama.n_tokens = n
        setattr(llama, PROMPT_ROWS, n)
        self.restored = n
        self.entries = [e for e in self.entries if e is not entry] + [entry]  # most recently used last

    def copy_out(self, llama: Any) -> Any:
        """Sequence 0's KV rows as bytes in host memory (None if llama.cpp cannot copy them)."""
        from llama_cpp import llama_cpp as C

        size = C.llama_state_seq_get_size(llama._ctx.ctx, 0)
        data = (ctypes.c_uint8 * size)()
        return data if C.llama_state_seq_get_data(llama._ctx.ctx, data, size, 0) == size else None

    def copy_in(self, llama: Any, entry: Entry) -> bool:
        """Put ``entry``'s rows back into the emptied sequence 0; False if llama.cpp refuses."""
        from llama_cpp import llama_cpp as C

        return bool(C.llama_state_seq_set_data(llama._ctx.ctx, entry.data, len(entry.data), 0))
