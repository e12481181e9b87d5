"""Trace's llama.cpp worker: the OpenAI-compatible server of the local backend (issue 17 item 4).

``python -m trace_crs.lm.llama_worker --model M.gguf --model_alias A --port P ...`` serves
``GET /v1/models`` and ``POST /v1/chat/completions`` on 127.0.0.1 over one
``llama_cpp.Llama``, loaded and called exactly as ``python -m llama_cpp.server`` does (its
``ModelSettings``, its request model with the same defaults, its chat handler) with one
difference that does not change an answer: the model is loaded **without** ``logits_all``.

Why: llama-cpp-python returns logprobs only from a model loaded with ``logits_all=True``,
which makes every prompt token pay for the full-vocabulary output layer, copies every
token's 151,936 logits into a NumPy buffer, and then log-softmaxes *all* those rows (the whole
conversation, not only the new one) and sorts the vocabulary in Python, for every call.  The
log-prob ranking (:mod:`trace_crs.lm.ranking`) asks one 1-token greedy question per candidate
card, so that overhead is most of its cost.  Here a request with ``logprobs`` and
``max_tokens: 1`` at temperature 0 is answered from the last prompt position's logits only:

* the prompt tokens come from the library's own chat handler (same template, same tokens);
* the KV cache keeps the longest common prefix with the previous request, as
  ``Llama.generate`` does (the candidate cards of a turn share the conversation prefix);
* the log-probabilities are ``Llama.logits_to_logprobs`` of that row, the token is its argmax
  (the library's greedy sampler; its repeat penalty has no history before the first token),
  and the response is built with the library's field layout (top list ordered and keyed as
  ``Llama._create_completion`` does, usage counts of the prompt and the one token).

Every other request goes through the same chat handler as ``Llama.create_chat_completion``;
with the request's ``trace_repeat_ngram`` = n > 0 (a local-model setting, ``LMConfig.repeat_ngram``,
never sent to an API model) generation also stops, ``finish_reason`` "stop", once the last n
generated tokens have occurred :data:`REPEATS` times in the reply (:class:`RepeatStop`): a small
model looping on one phrase stops there instead of decoding to ``max_tokens``.  The test
(``tests/lm/test_llama_worker.py``) compares both paths with ``llama_cpp.server`` on the same
requests.  Each response also carries llama.cpp's per-request ``timings`` (prompt tokens
evaluated after the reused KV prefix, tokens decoded, and their milliseconds; the names of
llama.cpp's own server), read by ``bench/bench_lm_profile.py``.  One request at a time per
process (a lock); the pool of processes is
:class:`trace_crs.lm.server.ServerPool`.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from trace_crs.lm.batch_worker import BatchedWorker

HOST = "127.0.0.1"
_EXCLUDE = {"n", "logit_bias_type", "user", "min_tokens"}  # as llama_cpp.server.app drops them
REPEAT_KEY = "trace_repeat_ngram"  # request field of the repetition guard (not llama.cpp's)
REPEATS = 3  # occurrences of the trailing n-gram that stop a reply


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

    def __init__(self, llama: Any, repeat_ngram: int = 0) -> None:
        self._llama, self._repeat_ngram = llama, repeat_ngram

    def create_completion(self, prompt: list[int], **kw: Any) -> Any:
        if kw.get("logprobs") is None:
            if self._repeat_ngram > 0:  # beside the chat template's own criteria (its end token)
                from llama_cpp import StoppingCriteriaList

                kw["stopping_criteria"] = StoppingCriteriaList(
                    [*(kw.get("stopping_criteria") or []), RepeatStop(len(prompt), self._repeat_ngram)]
                )
            return self._llama.create_completion(prompt=prompt, **kw)
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


def last_logits(llama: Any, tokens: list[int]) -> np.ndarray:
    """Evaluate ``tokens`` after the longest prefix still in the KV cache (as
    ``Llama.generate``) and return the logits of the last position."""
    from llama_cpp import llama_cpp as C

    if len(tokens) > llama.n_ctx():
        raise ValueError(f"Requested tokens ({len(tokens)}) exceed context window of {llama.n_ctx()}")
    prefix = 0
    if llama.n_tokens > 0:
        for a, b in zip(llama._input_ids, tokens, strict=False):
            if a != b:
                break
            prefix += 1
    prefix = min(prefix, len(tokens) - 1)  # always evaluate ≥ 1 token: fresh logits
    if prefix > 0 and llama._ctx.kv_cache_seq_rm(-1, prefix, -1):
        llama.n_tokens = prefix
    else:
        llama.reset()
        prefix = 0
    llama.eval(tokens[prefix:])
    row = np.ctypeslib.as_array(C.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(llama.n_vocab(),))
    return row.copy()


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


class Worker:
    """One model, one request at a time."""

    def __init__(self, llama: Any, alias: str) -> None:
        self.llama, self.alias, self.lock = llama, alias, threading.Lock()

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/chat/completions``: parsed with the library's request model and defaults."""
        from llama_cpp import llama_chat_format
        from llama_cpp import llama_cpp as C

        req, repeat_ngram = parse_chat_request(body)
        kwargs = req.model_dump(exclude=_EXCLUDE)
        with self.lock:
            llama = self.llama
            C.llama_perf_context_reset(llama._ctx.ctx)
            if not req.logprobs and not repeat_ngram:
                out = llama.create_chat_completion(**kwargs)
            else:  # the handler create_chat_completion would use, on the wrapped model
                handler = (
                    llama.chat_handler
                    or llama._chat_handlers.get(llama.chat_format)
                    or llama_chat_format.get_chat_completion_handler(llama.chat_format)
                )
                out = handler(llama=FastLogprobs(llama, repeat_ngram), **kwargs)
            perf = C.llama_perf_context(llama._ctx.ctx)
        # llama.cpp server's names: prompt tokens evaluated (after the reused KV prefix) and decoded
        out["timings"] = {
            "prompt_n": int(perf.n_p_eval),
            "prompt_ms": round(float(perf.t_p_eval_ms), 3),
            "predicted_n": int(perf.n_eval),
            "predicted_ms": round(float(perf.t_eval_ms), 3),
        }
        return out


TIMINGS_ENV = "TRACE_WORKER_TIMINGS"  # a file: one JSON line per answered request (bench/bench_lm_profile.py)


def log_timings(out: dict[str, Any]) -> None:
    """Append the request's usage, timings and finish reason to ``$TRACE_WORKER_TIMINGS`` (if set)."""
    path = os.environ.get(TIMINGS_ENV)
    if not path:
        return
    line = {
        "usage": out.get("usage"),
        "timings": out.get("timings"),
        "finish_reason": out["choices"][0].get("finish_reason"),
    }
    with open(path, "a", encoding="utf-8") as fh:  # one short O_APPEND write per line
        fh.write(json.dumps(line) + "\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: WorkerServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.server.worker.alias, "object": "model", "owned_by": "me", "permissions": []}],
                },
            )
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "only /v1/chat/completions"}})
            return
        try:
            out = self.server.worker.chat(json.loads(raw))
            log_timings(out)
            self._send(200, out)
        except ValueError as exc:  # bad request, context overflow, pydantic validation
            self._send(400, {"error": {"message": str(exc), "type": "invalid_request_error", "code": 400}})
        except Exception as exc:
            self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "internal_error"}})


class WorkerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, worker: Worker | BatchedWorker, port: int) -> None:
        self.worker = worker
        super().__init__((HOST, port), _Handler)


def load(args: argparse.Namespace) -> Any:
    """The ``Llama`` that ``llama_cpp.server`` would load for these settings, without ``logits_all``."""
    from llama_cpp.server.model import LlamaProxy
    from llama_cpp.server.settings import ModelSettings

    settings = ModelSettings(
        model=args.model,
        model_alias=args.model_alias,
        n_ctx=args.n_ctx,
        n_threads=args.n_threads,
        n_threads_batch=args.n_threads_batch,
        n_gpu_layers=args.n_gpu_layers,
        logits_all=False,
        verbose=args.verbose,
    )
    return LlamaProxy.load_llama_from_model_settings(settings)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trace_crs.lm.llama_worker", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--model_alias", required=True)
    p.add_argument("--host", default=HOST, choices=[HOST], help="loopback only")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--n_ctx", type=int, default=4096)
    p.add_argument("--n_threads", type=int, default=1)
    p.add_argument("--n_threads_batch", type=int, default=1)
    p.add_argument("--n_gpu_layers", type=int, default=0)
    p.add_argument("--verbose", type=lambda s: s.lower() == "true", default=False)
    p.add_argument("--parallel", type=int, default=0, help="slots decoded in one batch (0 = one request at a time)")
    args = p.parse_args(argv)
    if args.parallel < 0:
        p.error(f"--parallel: expected an integer >= 0, got {args.parallel}")
    worker: Worker | BatchedWorker
    if args.parallel:
        from trace_crs.lm.batch_worker import BatchedWorker

        n_ctx, args.n_ctx = args.n_ctx, 512  # each slot has n_ctx cells; the model's own context is unused
        worker = BatchedWorker(load(args), args.model_alias, args.parallel, n_ctx)
    else:
        worker = Worker(load(args), args.model_alias)
    server = WorkerServer(worker, args.port)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
