"""Batched decoding for the local worker: N sequences in one ``llama_decode`` per step (issue
"offline LLM speed", item 4: parallel slots with continuous batching on CPU).

llama-cpp-python's ``Llama`` decodes one sequence at a time; its server has no parallel slots.
:class:`BatchEngine` opens a second llama.cpp context on the same loaded model with ``n_seq_max``
= ``slots`` and ``slots`` × ``n_ctx_slot`` KV cells, laid out by ``kv`` (``lm.config.SLOT_KV``):

* ``private`` (the default): one KV stream of ``n_ctx_slot`` cells per slot, no copies between
  slots.  A sequence's cells then sit where the one-sequence worker's would, and its replies
  match that worker's also when other requests share the batch (measured:
  ``bench/bench_batch_slots.py``), except where a prompt is evaluated in other chunks;
* ``shared``: one unified KV cache (``kv_unified``) in which a prefix copied between sequences
  is shared cells, not a buffer copy (llama.cpp's cross-stream copy of the private layout gave
  different logits in our tests).  The factor calls of one judged transcript then read the
  conversation once, but a sequence's cells are scattered among the others', which changes the
  order of llama.cpp's attention sums: replies decoded concurrently differ in the last bits of
  the logits, and now and then in a greedy token.

One scheduler thread, each step, puts into one ``llama_batch``

* one token for every slot that is decoding (the token it sampled last step), then
* the next prompt chunk of each slot still reading its prompt, as long as the batch's
  capacity (``n_batch`` + ``slots`` tokens: every decoding slot's token and at least one whole
  chunk) leaves room for the whole chunk (continuous batching: a new request joins while others
  decode).  A chunk is what ``Llama.eval`` would evaluate at once (``n_batch`` tokens from where
  the reused prefix ends); it is never split to fill the batch, because llama.cpp's logits
  depend on how a prompt is cut into batches,

calls ``llama_decode`` once, and samples each decoding slot with its own llama.cpp sampler chain
(the chain ``Llama._init_sampler`` builds for the request, so greedy decoding with the request's
repeat penalty is the same as on the one-sequence path).  On CPU the weights are then read once
per step for all active sequences.

A request goes to the free slot whose KV cache holds the longest reusable prefix of its prompt
(ties: the lowest slot) — reusable by the one-sequence worker's rule
(:func:`~trace_crs.lm.llama_requests.reusable_prefix`): rows that were read as a prompt, whole
blocks of the reuse block :func:`~trace_crs.lm.llama_requests.measure_block` measures on the
engine's own context when it opens, and at least one block read — so calls that extend one conversation, or the factor calls of one judged
transcript, reuse the prefix as the one-sequence worker does; in the ``shared`` layout, when
another slot (busy or not) holds at least :data:`MIN_COPY` more reusable tokens of the prompt, its KV cells
are copied into the chosen slot (``llama_memory_seq_cp``) instead of evaluating that prefix
again — the factor calls of one transcript read the conversation once.

What the records depend on: each token's logits are computed from its own KV cells only; the
tests (``tests/lm/test_batch_engine.py``) compare replies at slots = 1 and slots = 3 and with the
one-sequence worker, greedy, on SmolLM2-135M.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trace_crs.lm.config import SLOT_KV
from trace_crs.lm.llama_requests import aligned, measure_block

DONE = object()  # end of a job's token stream (sent by the engine)
MIN_COPY = 32  # prompt tokens another slot must hold beyond a free slot's own prefix to be copied


@dataclass
class Job:
    """One request: a prompt, then either sampled tokens (``sampler`` set) or, with no sampler,
    the logits row of the last prompt position (the log-prob ranking's one-token question)."""

    prompt: list[int]
    sampler: Any = None
    criteria: Any = None  # llama-cpp-python StoppingCriteriaList, called as in Llama.generate
    out: queue.Queue = field(default_factory=queue.Queue)
    generated: list[int] = field(default_factory=list)
    cancelled: bool = False
    stopped_by_criteria: bool = False
    prompt_n: int = 0  # prompt tokens evaluated (after the reused prefix)
    predicted_n: int = 0  # sampled tokens evaluated
    prompt_ms: float = 0.0  # this job's share of the steps' wall time
    predicted_ms: float = 0.0

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class _Slot:
    seq: int
    tokens: list[int] = field(default_factory=list)  # what this sequence's KV cells hold
    prompt_rows: int = 0  # leading cells of ``tokens`` read as a prompt (not decoded one by one)
    job: Job | None = None
    pending: list[int] = field(default_factory=list)  # tokens to evaluate next
    decoding: bool = False  # past the prompt


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class BatchEngine:
    """``slots`` sequences decoded together on ``llama``'s model (module docstring)."""

    def __init__(self, llama: Any, slots: int, n_ctx_slot: int, n_batch: int = 512, kv: str = "private") -> None:
        import llama_cpp
        from llama_cpp import _internals

        if slots < 1 or n_ctx_slot < 8 or n_batch < slots:
            raise ValueError(
                f"BatchEngine: slots >= 1, n_ctx_slot >= 8, n_batch >= slots; got {slots}, {n_ctx_slot}, {n_batch}"
            )
        if kv not in SLOT_KV:
            raise ValueError(f"BatchEngine: kv must be one of {SLOT_KV}, got {kv!r}")
        self.copies = kv == "shared"
        self.C, self.llama = llama_cpp, llama
        self.slots = [_Slot(seq) for seq in range(slots)]
        self.n_ctx_slot, self.n_batch, self.capacity = n_ctx_slot, n_batch, n_batch + slots
        params = llama_cpp.llama_context_params.from_buffer_copy(llama.context_params)  # the loaded settings
        params.n_seq_max, params.n_ctx, params.kv_unified = slots, slots * n_ctx_slot, self.copies
        params.n_batch = params.n_ubatch = self.capacity  # one ubatch per step: no split by llama_decode
        self.ctx = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        self.memory = llama_cpp.llama_get_memory(self.ctx.ctx)
        self.batch = llama_cpp.llama_batch_init(self.capacity, 0, 1)
        self.block = measure_block(llama, read=self._read_in_parts)  # before any slot holds cells
        self.queue: list[Job] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="batch-engine", daemon=True)
        self.thread.start()

    # -- client side ---------------------------------------------------------------------
    def submit(self, job: Job) -> Job:
        if len(job.prompt) >= self.n_ctx_slot:
            raise ValueError(f"Requested tokens ({len(job.prompt)}) exceed context window of {self.n_ctx_slot}")
        if not job.prompt:
            raise ValueError("empty prompt")
        with self.cond:
            self.queue.append(job)
            self.cond.notify()
        return job

    # -- scheduler -------------------------------------------------------------------------
    def _assign(self) -> None:
        """Queued jobs, first come first served, to free slots (longest cached prefix first)."""
        while self.queue:
            free = [s for s in self.slots if s.job is None]
            if not free:
                return
            job = self.queue.pop(0)
            slot = max(free, key=lambda s: (self._reusable(s, job.prompt), -s.seq))
            keep = self._reusable(slot, job.prompt)
            donor = max(self.slots, key=lambda s: (self._reusable(s, job.prompt), -s.seq))
            shared = self._reusable(donor, job.prompt)
            if (
                self.copies and shared >= keep + MIN_COPY
            ):  # another slot already holds more of this prompt: copy its cells
                self.C.llama_memory_seq_rm(self.memory, slot.seq, -1, -1)
                self.C.llama_memory_seq_cp(self.memory, donor.seq, slot.seq, -1, -1)
                slot.tokens, keep = list(donor.tokens), shared
            if not self.C.llama_memory_seq_rm(self.memory, slot.seq, keep, -1):
                self.C.llama_memory_seq_rm(self.memory, slot.seq, -1, -1)
                keep = 0
            slot.tokens, slot.job, slot.prompt_rows = slot.tokens[:keep], job, len(job.prompt)
            slot.pending, slot.decoding = job.prompt[keep:], False

    def _reusable(self, slot: _Slot, prompt: list[int]) -> int:
        """Leading tokens of ``prompt`` whose cells ``slot`` keeps (module docstring)."""
        return aligned(min(common_prefix(slot.tokens, prompt), slot.prompt_rows), len(prompt), self.block)

    def _read_in_parts(self, tokens: list[int], split: int) -> np.ndarray:
        """Last-row logits of ``tokens`` read on sequence 0 from empty cells, in two ``llama_decode``
        calls split at ``split`` when it is > 0 (measure_block, before the scheduler starts)."""
        b, pos = self.batch, 0
        self.C.llama_memory_seq_rm(self.memory, 0, -1, -1)
        try:
            parts = [tokens[:split], tokens[split:]] if split else [tokens]
            for k, part in enumerate(parts):
                b.n_tokens = self._put(0, part, pos, 0, last_logits=k == len(parts) - 1)
                if (code := self.C.llama_decode(self.ctx.ctx, b)) != 0:
                    raise RuntimeError(f"llama_decode failed with code {code}")
                pos += len(part)
            row = self.C.llama_get_logits_ith(self.ctx.ctx, len(parts[-1]) - 1)
            return np.ctypeslib.as_array(row, shape=(self.llama.n_vocab(),)).copy()
        finally:
            self.C.llama_memory_seq_rm(self.memory, 0, -1, -1)

    def _put(self, n: int, tokens: list[int], pos: int, seq: int, last_logits: bool) -> int:
        """Write ``tokens`` of sequence ``seq`` (from position ``pos``) into the batch from row ``n``,
        asking for logits of the last one when ``last_logits``; returns the next free row."""
        b = self.batch
        for j, tok in enumerate(tokens):
            b.token[n + j], b.pos[n + j], b.n_seq_id[n + j] = tok, pos + j, 1
            b.seq_id[n + j][0] = seq
            b.logits[n + j] = last_logits and j == len(tokens) - 1
        return n + len(tokens)

    def _release(self, slot: _Slot, item: Any = DONE) -> None:
        if slot.job is not None:
            slot.job.out.put(item)
        slot.job, slot.pending, slot.decoding = None, [], False

    def _run(self) -> None:
        while True:
            with self.cond:
                for slot in self.slots:  # a client that stopped reading frees its slot
                    if slot.job is not None and slot.job.cancelled:
                        self._release(slot)
                self._assign()
                if not any(s.job is not None for s in self.slots):
                    self.cond.wait()
                    continue
            self._step()

    def _step(self) -> None:
        """One ``llama_decode`` over every active slot (module docstring)."""
        b, budget, plan = self.batch, self.capacity, []  # plan: (slot, count, logits index or -1)
        order = [s for s in self.slots if s.job is not None and s.decoding] + [
            s for s in self.slots if s.job is not None and not s.decoding
        ]
        n = 0
        for slot in order:
            chunk = slot.pending[: self.n_batch]  # the chunk Llama.eval would evaluate (n_batch tokens at most)
            if not chunk or (n + len(chunk) > budget and n > 0):
                continue  # whole chunks only: a prompt split elsewhere gives other logits (module docstring)
            take = chunk
            done_prompt = slot.decoding or len(take) == len(slot.pending)
            n = self._put(n, take, len(slot.tokens), slot.seq, last_logits=done_prompt)
            plan.append((slot, len(take), n - 1 if done_prompt else -1))
        b.n_tokens = n
        start = time.perf_counter()
        code = self.C.llama_decode(self.ctx.ctx, b)
        share = (time.perf_counter() - start) * 1000.0 / max(n, 1)
        for slot, count, index in plan:
            job = slot.job
            assert job is not None
            if code != 0:
                self.C.llama_memory_seq_rm(self.memory, slot.seq, -1, -1)
                slot.tokens = []
                self._release(slot, RuntimeError(f"llama_decode failed with code {code}"))
                continue
            if slot.decoding:
                job.predicted_n, job.predicted_ms = job.predicted_n + count, job.predicted_ms + share * count
            else:
                job.prompt_n, job.prompt_ms = job.prompt_n + count, job.prompt_ms + share * count
            slot.tokens += slot.pending[:count]
            slot.pending = slot.pending[count:]
            if index >= 0:
                self._after_logits(slot, job, index)

    def _after_logits(self, slot: _Slot, job: Job, index: int) -> None:
        """Sample (or hand back the logits row) as ``Llama.generate`` does after an eval."""
        if job.sampler is None:
            row = self.C.llama_get_logits_ith(self.ctx.ctx, index)
            self._release(slot, np.ctypeslib.as_array(row, shape=(self.llama.n_vocab(),)).copy())
            return
        token = int(job.sampler.sample(self.ctx, index))  # the chain accepts the token itself
        if job.criteria is not None:  # checked on what was yielded so far, as Llama.generate
            row = np.ctypeslib.as_array(self.C.llama_get_logits_ith(self.ctx.ctx, index), shape=(self.llama.n_vocab(),))
            if job.criteria(np.asarray(job.prompt + job.generated, dtype=np.intc), row):
                job.stopped_by_criteria = True
                self._release(slot)
                return
        job.generated.append(token)
        job.out.put(token)
        eog = self.C.llama_vocab_is_eog(self.llama._model.vocab, token)
        if eog or len(slot.tokens) + 1 >= self.n_ctx_slot:
            self._release(slot)
        else:
            slot.pending, slot.decoding = [token], True
