"""Speculative decoding by prompt lookup on the local worker (``LMConfig.draft``; README "Local model settings").

Much of what a local LLM writes is copied from its prompt (an LLM baseline's verbatim review
quotes from the candidate cards, a CoRE judge rationale quoting the conversation).
llama-cpp-python's :class:`llama_cpp.llama_speculative.LlamaPromptLookupDecoding` proposes the
next ``draft_tokens`` tokens from the latest match of the last ``draft_ngram`` tokens earlier in
the context, and ``Llama.generate`` verifies the drafts in one forward pass: it samples at each
drafted position and keeps the drafts up to the first one the model would not have chosen, so
under greedy decoding every kept token is the one token-by-token decoding picks — *in exact
arithmetic*.  llama.cpp's CPU kernels can round a batch of several positions differently from a
single one, so replies are compared with and without drafts (``tests/lm/test_prompt_lookup.py``,
``bench/bench_judge_core.py``, ``bench/bench_lm_throughput.py``) rather than assumed equal.

One difference from ``Llama(draft_model=...)``, which does not change what is sampled: the
library turns on ``logits_all`` whenever a draft model is set, so every *prompt* token would pay
for the full-vocabulary output layer and a copy of its logits (the cost the Trace worker was
written to avoid, :mod:`trace_crs.lm.llama_worker`).  :func:`enable` instead sets the draft
model on the loaded ``Llama`` and replaces its ``eval`` by :func:`eval_for_drafts`, which asks
llama.cpp for logits at every position only of a batch short enough to be a verification batch
(the sampled token plus at most ``draft_tokens`` drafts) and at the last position otherwise
(a prompt); the sampler reads them from the context (``Llama.sample(idx=...)``), never from
``Llama.scores``.  The KV prefix reuse of ``Llama.generate`` is unchanged: rejected drafts are
removed from the KV cache by ``generate`` itself, and drafts left after the last sampled token
stay in ``input_ids`` beside their KV cells, so the next request's prefix match stays exact.

llama.cpp's per-request counters (the worker's ``timings``, read by ``bench/bench_lm_profile.py``)
count every batch of more than one token as prompt evaluation, so with drafts ``prompt_n``
includes the verified positions and ``predicted_n`` only the steps decoded without a draft;
``usage.completion_tokens`` is still the reply's length.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any

__all__ = ["enable", "eval_for_drafts"]


def eval_for_drafts(llama: Any, tokens: Sequence[int], draft_tokens: int) -> None:
    """``Llama.eval`` with logits at every position of a batch of at most ``draft_tokens + 1``
    tokens (a verification batch) and at the last position of a longer one (a prompt)."""
    llama._ctx.kv_cache_seq_rm(-1, llama.n_tokens, -1)
    every = len(tokens) <= draft_tokens + 1
    for i in range(0, len(tokens), llama.n_batch):
        batch = tokens[i : min(len(tokens), i + llama.n_batch)]
        n_past = llama.n_tokens
        llama._batch.set_batch(batch=batch, n_past=n_past, logits_all=every)
        llama._ctx.decode(llama._batch)
        llama.input_ids[n_past : n_past + len(batch)] = batch
        llama.n_tokens += len(batch)
        llama._requires_eval = False


def enable(llama: Any, draft_tokens: int, draft_ngram: int) -> Any:
    """Turn on prompt-lookup drafts (``draft_tokens`` per step, n-grams up to ``draft_ngram``)
    on a ``Llama`` loaded without ``logits_all``; returns it."""
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    if draft_tokens < 1 or draft_ngram < 1:
        raise ValueError(f"prompt lookup: draft_tokens and draft_ngram must be >= 1, got {draft_tokens}, {draft_ngram}")
    if llama._logits_all:
        raise ValueError("prompt lookup: load the model without logits_all (the worker's one-token log-prob path)")
    llama.draft_model = LlamaPromptLookupDecoding(max_ngram_size=draft_ngram, num_pred_tokens=draft_tokens)
    llama.eval = types.MethodType(lambda self, tokens: eval_for_drafts(self, tokens, draft_tokens), llama)
    return llama
