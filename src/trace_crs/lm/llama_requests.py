"""One chat request on a loaded llama-cpp-python ``Llama``: what both Trace workers (the
one-sequence :mod:`trace_crs.lm.llama_worker` and the batched :mod:`trace_crs.lm.batch_worker`)
do between the HTTP body and the library's chat handler, with no HTTP and no scheduling here.

* :func:`parse_chat_request` — the body parsed with ``llama_cpp.server``'s own request model and
  defaults (the fields its app drops are dropped, :func:`completion_kwargs`), plus the Trace
  repetition-guard field :data:`REPEAT_KEY`; :func:`chat_handler` is the handler
  ``Llama.create_chat_completion`` would use.
* :class:`RepeatStop` — the local-model repetition guard (``LMConfig.repeat_ngram``, never sent to
  an API model): generation stops, ``finish_reason`` "stop", once the last n generated tokens have
  occurred :data:`REPEATS` times in the reply, so a small model looping on one phrase stops there
  instead of decoding to ``max_tokens``.
* :func:`one_token_logprobs` — the response ``Llama.create_completion`` gives for a 1-token greedy
  request with ``logprobs``, built from the last prompt position's logits only (no
  ``logits_all``): the log-probabilities are ``Llama.logits_to_logprobs`` of that row, the token is
  its argmax (the library's greedy sampler; its repeat penalty has no history before the first
  token), and the top list, offsets and usage follow ``Llama._create_completion``'s layout.
  :func:`last_logits` evaluates the prompt after the prefix kept in the KV cache
  (:func:`reusable_prefix`); :class:`FastLogprobs` routes a handler's ``create_completion`` there.
* :func:`reusable_prefix` — how much of the KV cache a request keeps.  A reply must not depend on
  which request came before it (records are keyed by the request alone; ``lm records verify``
  recomputes one on a fresh server).  Measured on Qwen2.5-0.5B Q4_K_M (``tests/lm/test_llama_worker.py``
  keeps it): the logits of a prompt read in one batch equal those of the same prompt read in two
  parts only when the split is a multiple of 8 tokens **and** both parts hold at least 8 tokens
  (a part of fewer rows takes another path through the CPU matmul kernels; on 79 tokens split at
  multiples of 8, every split with a tail of 1 to 7 tokens differed and every other one was equal),
  and rows that were *decoded* one at a time (an earlier reply that reappears in the next prompt)
  differ from the same rows read in a batch (SmolLM2-135M too), up to 0.3 in a logit.  So a request
  keeps only the common prefix that the previous request read as its prompt, rounded down to whole
  blocks of the loaded model's reuse block and leaving at least one block to read; every kept row
  was then computed exactly as a fresh server computes it.  Thread count does not change the logits.
* :func:`measure_block` — that block, measured on the machine when a worker loads its model: the
  smallest of :data:`BLOCKS` for which test prompts read in two parts (split at one and two blocks,
  tails of one block and more) give the logits of the prompt read at once (8 for the Qwen2.5
  models here, 4 for SmolLM2; another CPU's kernels may differ), or no reuse when none does.
  Without a measurement (a stand-in model) the block is :data:`REUSE_BLOCK`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from trace_crs.lm.kv_stash import KVStash

_EXCLUDE = {"n", "logit_bias_type", "user", "min_tokens"}  # as llama_cpp.server.app drops them
REPEAT_KEY = "trace_repeat_ngram"  # request field of the repetition guard (not llama.cpp's)
REPEATS = 3  # occurrences of the trailing n-gram that stop a reply
REUSE_BLOCK = 16  # KV reuse in whole blocks when none was measured (module docstring, measure_block)
BLOCKS = (4, 8, 16)  # the reuse blocks measure_block tries, smallest first
NO_REUSE = 0  # the block when no candidate passes: every request reads its whole prompt
PROMPT_ROWS = "trace_prompt_rows"  # attribute set on the Llama: leading cache rows read as a prompt
KV_BLOCK = "trace_kv_block"  # attribute set on the Llama: its measured reuse block (measure_block)


class RepeatStop:
    """A llama.cpp stopping criterion: True once the last ``n`` generated tokens (after the
    ``prompt_len`` prompt tokens) have occurred :data:`REPEATS` times in the reply.  Counts are
    kept incrementally, O(n) per token."""

    def __init__(self, prompt_len: int, n: int, repeats: int = REPEATS) -> None:
        if n < 1 or repeats < 2:
            raise ValueError(f"RepeatStop: n must be >= 1 and repeats >= 2, got n={n}, repeats={repeats}")
        self.prompt_len, self.n, self.repeats = prompt_len, n, repeats
        self.seen: dict[tuple[int, ...], int] = {}
        self.done = prompt_len + n - 1  # the last end position already counted
        self.stopped = False  # llama.cpp asks again after the generator stops

    def __call__(self, input_ids: Any, logits: Any = None) -> bool:
        if self.stopped:
            return True
        first = self.done + 1 - self.n  # only the tokens not yet counted
        ids, total = [int(t) for t in input_ids[first:]], len(input_ids)
        for end in range(self.done + 1, total + 1):
            gram = tuple(ids[end - self.n - first : end - first])
            self.seen[gram] = self.seen.get(gram, 0) + 1
            self.done = end
            if self.seen[gram] >= self.repeats:
                self.stopped = True
                return True
        return False


class FastLogprobs:
    """A stand-in for the ``Llama`` handed to the chat handler: ``create_completion`` answers a
    1-token greedy logprobs request from the last row of logits; everything else is the model's."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def __init__(self, llama: Any, repeat_ngram: int = 0, stash: KVStash | None = None) -> None:
        self._llama, self._repeat_ngram, self._stash = llama, repeat_ngram, stash

    def create_completion(self, prompt: list[int], **kw: Any) -> Any:
        if self._stash is not None:
            self._stash.prepare(self._llama, list(prompt))
        if kw.get("logprobs") is None:
            if self._repeat_ngram > 0:  # beside the chat template's own criteria (its end token)
                from llama_cpp import StoppingCriteriaList

                kw["stopping_criteria"] = StoppingCriteriaList(
                    [*(kw.get("stopping_criteria") or []), RepeatStop(len(prompt), self._repeat_ngram)]
                )
            # Llama.generate reuses the longest cached prefix of its first n_tokens: cap it
            self._llama.n_tokens = reusable_prefix(self._llama, list(prompt))
            try:
                return self._llama.create_completion(prompt=prompt, **kw)
            finally:
                setattr(self._llama, PROMPT_ROWS, len(prompt))
        check_one_token(kw)
        return one_token_logprobs(self._llama, list(prompt), int(kw["logprobs"]), kw.get("stop"), kw.get("model"))


def check_one_token(kw: dict[str, Any]) -> None:
    """Refuse a logprobs request this server cannot answer from one row of logits."""
    if (
        kw.get("max_tokens") != 1
        or kw.get("temperature") != 0.0
        or kw.get("stream")
        or kw.get("grammar") is not None
        or kw.get("logit_bias")
        or kw.get("logits_processor")
    ):
        raise ValueError(
            "this server returns logprobs only for 1-token greedy answers "
            "(max_tokens=1, temperature=0, no grammar, bias or stream)"
        )


def common_prefix(a: Any, b: Any) -> int:
    """Length of the common leading run of two token sequences."""
    a, b = np.asarray(a, dtype=np.intc), np.asarray(b, dtype=np.intc)
    n = min(len(a), len(b))
    diff = np.nonzero(a[:n] != b[:n])[0]
    return int(diff[0]) if len(diff) else n


def aligned(n: int, prompt_len: int, block: int = REUSE_BLOCK) -> int:
    """``n`` shared rows as a reusable prefix of a ``prompt_len``-token prompt: whole ``block``s,
    leaving at least one ``block`` of the prompt to read (module docstring; none when ``block`` is 0)."""
    if block <= NO_REUSE:
        return 0
    return max(0, min(n, prompt_len - block)) // block * block


def block_of(llama: Any) -> int:
    """The reuse block of ``llama``: measured (:func:`measure_block`) or :data:`REUSE_BLOCK`."""
    return int(getattr(llama, KV_BLOCK, REUSE_BLOCK))


def reusable_prefix(llama: Any, tokens: list[int]) -> int:
    """Leading tokens of ``tokens`` whose KV rows stay in the cache: the common prefix with the
    cache, within the rows the previous request read as its prompt, :func:`aligned` to its block."""
    common = common_prefix(llama._input_ids, tokens) if llama.n_tokens > 0 else 0
    return aligned(min(common, getattr(llama, PROMPT_ROWS, 0)), len(tokens), block_of(llama))


PROBE_TEXT = (  # any text: its tokens are read whole and in two parts (measure_block)
    "Traveler: a quiet vegetarian place near the old town, not too dear, with a terrace for the evening. "
    "Assistant: Green Table fits; reviewers say the salads are lovely and the room is calm, and one "
    "wrote that the staff let them stay long after dinner. Traveler: something open late on Sunday "
    "instead, and cheaper please, ideally within walking distance of the river and the museum."
)


def measure_block(
    llama: Any,
    blocks: tuple[int, ...] = BLOCKS,
    text: str = PROBE_TEXT,
    read: Callable[[list[int], int], np.ndarray] | None = None,
) -> int:
    """The smallest of ``blocks`` whose whole multiples are safe split points on this machine when
    each part holds at least one block: prompts of 3, 3 + 3 and 3 + 7 blocks' tokens of ``text``,
    each read in two parts split at one and at two blocks, give the last-row logits of the prompt
    read at once; :data:`NO_REUSE` when none passes.  ``read(tokens, split)`` reads a prompt from
    an empty cache (default: ``llama``'s own context; the batched worker passes its engine's).
    Sets nothing; the caller sets :data:`KV_BLOCK`."""
    tokens = llama.tokenize(text.encode(), add_bos=False)
    if len(tokens) < 3 * max(blocks) + 7:
        raise ValueError(f"measure_block: the probe text needs at least {3 * max(blocks) + 7} tokens")
    read_parts = read or (lambda prompt, split: _logits_in_parts(llama, prompt, split))
    try:
        for block in blocks:
            prompts = [tokens[: 3 * block + extra] for extra in (0, 3, 7)]
            if all(
                np.array_equal(read_parts(prompt, split), read_parts(prompt, 0))
                for prompt in prompts
                for split in (block, 2 * block)
            ):
                return block
        return NO_REUSE
    finally:
        if read is None:
            llama.reset()
            setattr(llama, PROMPT_ROWS, 0)


def _logits_in_parts(llama: Any, tokens: list[int], split: int) -> np.ndarray:
    """Last-row logits of ``tokens`` read from an empty cache, in two parts when ``split`` > 0."""
    llama._ctx.kv_cache_seq_rm(-1, 0, -1)
    llama.reset()
    for part in [tokens[:split], tokens[split:]] if split else [tokens]:
        llama.eval(part)
    return _last_row(llama)


def _last_row(llama: Any) -> np.ndarray:
    """A copy of the logits of the last position ``llama`` evaluated."""
    from llama_cpp import llama_cpp as C

    return np.ctypeslib.as_array(C.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(llama.n_vocab(),)).copy()


def last_logits(llama: Any, tokens: list[int]) -> np.ndarray:
    """Evaluate ``tokens`` after the prefix kept in the KV cache (:func:`reusable_prefix`) and
    return the logits of the last position."""
    if len(tokens) > llama.n_ctx():
        raise ValueError(f"Requested tokens ({len(tokens)}) exceed context window of {llama.n_ctx()}")
    prefix = reusable_prefix(llama, tokens)
    if prefix > 0 and llama._ctx.kv_cache_seq_rm(-1, prefix, -1):
        llama.n_tokens = prefix
    else:
        llama.reset()
        prefix = 0
    llama.eval(tokens[prefix:])
    setattr(llama, PROMPT_ROWS, len(tokens))
    return _last_row(llama)


def one_token_logprobs(
    llama: Any, prompt: list[int], top_k: int, stop: Any, model: str | None, logits: np.ndarray | None = None
) -> dict[str, Any]:
    """The text-completion response ``Llama.create_completion`` gives for ``max_tokens=1``,
    ``temperature=0`` and ``logprobs=top_k`` (echo off), from the last row of logits (``logits``
    when given, else evaluated here with :func:`last_logits`)."""
    from llama_cpp import Llama
    from llama_cpp import llama_cpp as C

    logprobs = Llama.logits_to_logprobs(last_logits(llama, prompt) if logits is None else logits)
    token = int(np.argmax(logprobs))  # greedy: the first maximum
    finish, completion = "length", [token]
    if C.llama_vocab_is_eog(llama._model.vocab, token):  # as Llama._create_completion
        finish, completion = "stop", []
    text = llama.detokenize(completion).decode("utf-8", errors="ignore")
    for s in [stop] if isinstance(stop, str) else (stop or []):
        if s and s in text:
            text, finish = text[: text.index(s)], "stop"
    tokens, offsets, token_lps, tops = [], [], [], []
    for tok in completion:
        tok_str = llama.detokenize([tok], prev_tokens=[]).decode("utf-8", errors="ignore")
        kth = np.partition(logprobs, -top_k)[-top_k] if 0 < top_k < len(logprobs) else -np.inf
        best = sorted(np.nonzero(logprobs >= kth)[0].tolist(), key=lambda i: (logprobs[i], i), reverse=True)[:top_k]
        top = {llama.detokenize([i], prev_tokens=[]).decode("utf-8", errors="ignore"): float(logprobs[i]) for i in best}
        top.update({tok_str: float(logprobs[tok])})
        tokens.append(tok_str)
        offsets.append(len(prompt))
        token_lps.append(float(logprobs[tok]))
        tops.append(top)
    lp = {"tokens": tokens, "text_offset": offsets, "token_logprobs": token_lps, "top_logprobs": tops}
    return {
        "id": f"cmpl-{uuid.uuid4()}",
        "object": "text_completion",
        "created": int(time.time()),
        "model": model if model is not None else llama.model_path,
        "choices": [{"text": text, "index": 0, "logprobs": lp, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": len(prompt),
            "completion_tokens": len(completion),
            "total_tokens": len(prompt) + len(completion),
        },
    }


def parse_chat_request(body: dict[str, Any]) -> tuple[Any, int]:
    """A chat request parsed with the library's request model and defaults, and our
    repetition-guard n-gram (:data:`REPEAT_KEY`, 0 = off); streaming is refused."""
    from llama_cpp.server.types import CreateChatCompletionRequest

    body = dict(body)
    repeat_ngram = body.pop(REPEAT_KEY, 0) or 0
    if isinstance(repeat_ngram, bool) or not isinstance(repeat_ngram, int) or repeat_ngram < 0:
        raise ValueError(f"{REPEAT_KEY}: expected an integer >= 0, got {repeat_ngram!r}")
    req = CreateChatCompletionRequest(**body)
    if req.stream:
        raise ValueError("streaming is not supported by this server")
    return req, repeat_ngram


def completion_kwargs(req: Any) -> dict[str, Any]:
    """The parsed request as keyword arguments of the chat handler (``llama_cpp.server.app``'s dump)."""
    return dict(req.model_dump(exclude=_EXCLUDE))


def chat_handler(llama: Any) -> Any:
    """The chat handler ``Llama.create_chat_completion`` would use for ``llama``."""
    from llama_cpp import llama_chat_format

    return (
        llama.chat_handler
        or llama._chat_handlers.get(llama.chat_format)
        or llama_chat_format.get_chat_completion_handler(llama.chat_format)
    )
