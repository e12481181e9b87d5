"""Trace's llama.cpp worker: the OpenAI-compatible server of the local backend (faster than llama-cpp-python's).

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
``max_tokens: 1`` at temperature 0 is answered from the last prompt position's logits only,
reusing the KV prefix of the previous request (the candidate cards of a turn share the
conversation prefix) only as far as it leaves the reply unchanged
(:func:`trace_crs.lm.llama_requests.reusable_prefix`), or of an earlier request kept in host memory
(:mod:`trace_crs.lm.kv_stash`, ``--kv_stash``); every other request goes through the same
chat handler as ``Llama.create_chat_completion``, with the repetition guard when the request asks
for it.  How one request is answered is :mod:`trace_crs.lm.llama_requests`; this module is the
process around it: the model's loading, the HTTP server, one request at a time per process (a lock; the pool of
processes is :class:`trace_crs.lm.server.ServerPool`), optionally with prompt-lookup drafts
(``--draft prompt-lookup``, :mod:`trace_crs.lm.prompt_lookup`), or ``--parallel N`` slots decoded
in one batch (:mod:`trace_crs.lm.batch_worker`).  The test (``tests/lm/test_llama_worker.py``) compares
both paths with ``llama_cpp.server`` on the same requests.  Each response also carries
llama.cpp's per-request ``timings`` (prompt tokens evaluated after the reused KV prefix, tokens
decoded, and their milliseconds; the names of llama.cpp's own server), read by
``bench/bench_lm_profile.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from trace_crs.lm.config import DRAFTS, SLOT_KV, LMConfig
from trace_crs.lm.kv_stash import ENTRIES, KVStash
from trace_crs.lm.llama_requests import (
    KV_BLOCK,
    FastLogprobs,
    block_of,
    chat_handler,
    completion_kwargs,
    measure_block,
    parse_chat_request,
)

if TYPE_CHECKING:
    from trace_crs.lm.batch_worker import BatchedWorker

HOST = "127.0.0.1"


class Worker:
    """One model, one request at a time."""

    def __init__(self, llama: Any, alias: str, stash: int = ENTRIES) -> None:
        self.llama, self.alias, self.lock = llama, alias, threading.Lock()
        self.stash = KVStash(stash)

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/chat/completions``: parsed with the library's request model and defaults."""
        from llama_cpp import llama_cpp as C

        req, repeat_ngram = parse_chat_request(body)
        kwargs = completion_kwargs(req)
        with self.lock:
            llama = self.llama
            C.llama_perf_context_reset(llama._ctx.ctx)
            # the handler create_chat_completion would use, on the wrapped model (KV reuse, logprobs)
            out = chat_handler(llama)(llama=FastLogprobs(llama, repeat_ngram, self.stash), **kwargs)
            perf = C.llama_perf_context(llama._ctx.ctx)
        # llama.cpp server's names: prompt tokens evaluated (after the reused KV prefix) and decoded
        out["timings"] = {
            "prompt_n": int(perf.n_p_eval),
            "prompt_ms": round(float(perf.t_p_eval_ms), 3),
            "predicted_n": int(perf.n_eval),
            "predicted_ms": round(float(perf.t_eval_ms), 3),
            # the reply is independent of earlier requests (llama_requests.reusable_prefix); read by
            # lm.records_verify.history_free: records without it came from a worker whose KV reuse was not
            "kv_reuse_block": block_of(llama),
            "prompt_restored_n": self.stash.restored,  # prompt rows put back from host memory (lm.kv_stash)
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
    p.add_argument(
        "--kv_stash", type=int, default=ENTRIES, help="earlier prompts kept in host memory (lm.kv_stash; 0 = off)"
    )
    p.add_argument("--parallel", type=int, default=0, help="slots decoded in one batch (0 = one request at a time)")
    p.add_argument("--slot_kv", default="private", choices=SLOT_KV, help="KV layout of the slots (lm.batch_engine)")
    p.add_argument("--draft", default="none", choices=DRAFTS, help="speculative drafts (lm.prompt_lookup)")
    p.add_argument("--draft_tokens", type=int, default=LMConfig.draft_tokens, help="draft tokens verified per step")
    p.add_argument(
        "--draft_ngram", type=int, default=LMConfig.draft_ngram, help="longest n-gram looked up in the context"
    )
    args = p.parse_args(argv)
    if args.parallel < 0:
        p.error(f"--parallel: expected an integer >= 0, got {args.parallel}")
    if args.draft != "none" and args.parallel:
        p.error("--draft: the batched slots (--parallel) decode without drafts; use one of them")
    if args.draft_tokens < 1 or args.draft_ngram < 1:
        p.error(f"--draft_tokens, --draft_ngram: expected integers >= 1, got {args.draft_tokens}, {args.draft_ngram}")
    worker: Worker | BatchedWorker
    if args.parallel:
        from trace_crs.lm.batch_worker import BatchedWorker

        n_ctx, args.n_ctx = args.n_ctx, 512  # each slot has n_ctx cells; the model's own context is unused
        worker = BatchedWorker(load(args), args.model_alias, args.parallel, n_ctx, args.slot_kv)
    else:
        llama = load(args)
        setattr(llama, KV_BLOCK, measure_block(llama))  # this machine's kernels (llama_requests)
        if args.draft == "prompt-lookup":
            from trace_crs.lm.prompt_lookup import enable

            enable(llama, args.draft_tokens, args.draft_ngram)
        worker = Worker(llama, args.model_alias, args.kv_stash)
    server = WorkerServer(worker, args.port)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
