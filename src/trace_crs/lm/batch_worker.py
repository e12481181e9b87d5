"""The worker's ``--parallel N`` mode: chat requests answered concurrently by a
:class:`~trace_crs.lm.batch_engine.BatchEngine` (N slots, one ``llama_decode`` per step).

Each HTTP request thread runs llama-cpp-python's own chat handler on a :class:`SlotLlama`, a
per-request stand-in for the loaded ``Llama``: the handler's template, tokenizer and
``Llama.create_completion`` / ``Llama._create_completion`` (stop strings, end-of-generation,
``max_tokens``, finish reason, usage) are the library's code run on the stand-in, whose only
difference is ``generate``: its tokens come from the engine's slot instead of the model's one
sequence.  The one-token log-prob answers of :mod:`trace_crs.lm.llama_requests` read their logits
row from a slot too.  So a reply differs from the one-sequence worker's only if llama.cpp's
arithmetic for a token depends on what else is in its batch (measured: ``tests/lm/test_batch_engine.py``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from llama_cpp import Llama, StoppingCriteriaList

from trace_crs.lm.batch_engine import DONE, BatchEngine, Job
from trace_crs.lm.llama_requests import (
    RepeatStop,
    chat_handler,
    check_one_token,
    completion_kwargs,
    one_token_logprobs,
    parse_chat_request,
)


class SlotLlama:
    """One request's view of the model (module docstring); everything not defined here is the
    loaded ``Llama``'s."""

    create_completion = Llama.create_completion
    _create_completion = Llama._create_completion
    _init_sampler = Llama._init_sampler

    def __init__(self, llama: Any, engine: BatchEngine, repeat_ngram: int = 0) -> None:
        self._llama, self._engine, self._repeat_ngram = llama, engine, repeat_ngram
        self._n_ctx, self._seed = engine.n_ctx_slot, llama._seed
        self.jobs: list[Job] = []
        self._ids: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def n_ctx(self) -> int:
        return self._n_ctx

    def set_seed(self, seed: int) -> None:
        self._seed = seed  # per request: the shared model's seed is left alone

    @property
    def _input_ids(self) -> np.ndarray:
        """What ``Llama._create_completion`` reads after its loop: prompt and evaluated tokens."""
        return np.asarray(self._ids, dtype=np.intc)

    @property
    def _scores(self) -> np.ndarray:
        return np.zeros((1, self._llama.n_vocab()), dtype=np.single)

    def generate(self, tokens: list[int], **kw: Any) -> Any:
        """``Llama.generate``'s token stream, decoded in an engine slot."""
        kw.pop("reset", None)
        criteria = kw.pop("stopping_criteria", None)
        if self._repeat_ngram > 0:
            criteria = StoppingCriteriaList([*(criteria or []), RepeatStop(len(tokens), self._repeat_ngram)])
        # the chain Llama.generate builds for these arguments (SlotLlama carries the state it reads)
        sampler = self._init_sampler(**kw)
        job = self._engine.submit(Job(prompt=list(tokens), sampler=sampler, criteria=criteria))
        self.jobs.append(job)
        yielded: list[int] = []
        try:
            while True:
                item = job.out.get()
                if item is DONE:
                    self._ids = list(tokens) + yielded
                    return
                if isinstance(item, BaseException):
                    raise item
                self._ids = list(tokens) + yielded  # the token being yielded is not evaluated yet
                yielded.append(item)
                yield item
        finally:
            job.cancel()

    def create_completion_logprobs(self, prompt: list[int], kw: dict[str, Any]) -> dict[str, Any]:
        check_one_token(kw)
        job = self._engine.submit(Job(prompt=list(prompt)))  # no sampler: the last logits row
        self.jobs.append(job)
        logits = job.out.get()
        if isinstance(logits, BaseException):
            raise logits
        return one_token_logprobs(
            self._llama, list(prompt), int(kw["logprobs"]), kw.get("stop"), kw.get("model"), logits=logits
        )


class _Handed:
    """What the chat handler calls ``create_completion`` on: log-prob requests go to the
    one-row path, everything else to the library's completion on the :class:`SlotLlama`."""

    def __init__(self, slot: SlotLlama) -> None:
        self._slot = slot

    def __getattr__(self, name: str) -> Any:
        return getattr(self._slot, name)

    def create_completion(self, prompt: list[int], **kw: Any) -> Any:
        if kw.get("logprobs") is None:
            return self._slot.create_completion(prompt=prompt, **kw)
        return self._slot.create_completion_logprobs(prompt, kw)


class BatchedWorker:
    """``POST /v1/chat/completions`` for many requests at once (same interface as ``Worker``)."""

    def __init__(self, llama: Any, alias: str, slots: int, n_ctx_slot: int, kv: str = "private") -> None:
        self.llama, self.alias = llama, alias
        self.engine = BatchEngine(llama, slots, n_ctx_slot, kv=kv)

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        req, repeat_ngram = parse_chat_request(body)
        slot = SlotLlama(self.llama, self.engine, repeat_ngram)
        out = cast(dict[str, Any], chat_handler(self.llama)(llama=cast(Llama, _Handed(slot)), **completion_kwargs(req)))
        jobs = slot.jobs
        out["timings"] = {  # llama.cpp server's names; the milliseconds are this request's share of each step
            "prompt_n": sum(j.prompt_n for j in jobs),
            "prompt_ms": round(sum(j.prompt_ms for j in jobs), 3),
            "predicted_n": sum(j.predicted_n for j in jobs),
            "predicted_ms": round(sum(j.predicted_ms for j in jobs), 3),
        }
        return out
