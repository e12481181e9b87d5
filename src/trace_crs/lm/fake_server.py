"""A local OpenAI-compatible fake LM server for tests and benchmarks (latency and faults of an API, no model).

Serves ``POST /v1/chat/completions``, ``GET /v1/models`` and ``GET /v1/stats`` (the counts of
what it served) on 127.0.0.1 only.  Answers are a pure function of the request's messages
(:mod:`trace_crs.lm.fake_answers`).  Usage counts 4 characters a token.  Tests that need other
answers pass ``reply`` (the request's messages → the reply text) to :func:`serve`.

Latency is lognormal (``latency_median_s``, ``latency_sigma``) and faults are drawn from
``rates`` (:data:`FAULTS`), both seeded by ``(seed, request hash, how often this request
was seen before)`` — the same requests meet the same faults whatever the concurrency or
arrival order; ``schedule`` forces the faults of the first requests in arrival order.
Faults: ``429`` (no ``Retry-After``), ``429-retry-after``, ``500``, ``503``, ``timeout``
(the answer is held ``timeout_sleep_s``), ``reset`` (connection closed with an RST),
``truncated`` (half the promised JSON body), ``non-json`` (an HTML 200) and ``length`` (a
well-formed answer whose content is cut to its first half, ``finish_reason`` "length": a reply
that ran into ``max_tokens``).

    python -m trace_crs.lm.fake_server --port 8000 --latency-median 1.5 --rate 429=0.01

prints its base URL, serves until SIGTERM / SIGINT, then prints the JSON counts of what it served.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from statistics import NormalDist
from typing import Any

from trace_crs import DEFAULT_SEED
from trace_crs.lm.fake_answers import Reply, reply_to, request_hash, unit

HOST = "127.0.0.1"
_NORMAL = NormalDist()
FAULTS: tuple[str, ...] = ("429", "429-retry-after", "500", "503", "timeout", "reset", "truncated", "non-json")
REPLY_FAULTS: tuple[str, ...] = ("length",)  # a well-formed response with a bad reply (not retried by lm.faults)
ALL_FAULTS = FAULTS + REPLY_FAULTS


@dataclass(frozen=True)
class FakeConfig:
    """What the fake server does: latency distribution, fault rates, seed."""

    seed: int = DEFAULT_SEED
    latency_median_s: float = 0.0
    latency_sigma: float = 0.5
    rates: dict[str, float] = field(default_factory=dict)  # fault name -> probability per request
    schedule: tuple[str, ...] = ()  # faults of the first requests, in arrival order ("ok" = none)
    retry_after_s: float = 1.0
    timeout_sleep_s: float = 30.0

    def __post_init__(self) -> None:
        unknown = sorted((set(self.rates) | set(self.schedule)) - {"ok", *ALL_FAULTS})
        if unknown:
            raise ValueError(f"fake server: unknown fault(s) {unknown}; known: {list(ALL_FAULTS)}")
        if sum(self.rates.values()) > 1 or any(r < 0 for r in self.rates.values()):
            raise ValueError(f"fake server: fault rates must be >= 0 and sum to <= 1, got {self.rates}")


class FakeLMServer(ThreadingHTTPServer):
    """The HTTP server; :meth:`stats` counts requests and the faults served."""

    daemon_threads = True
    request_queue_size = 1024  # the paper's 256-512 concurrent requests connect at once

    def __init__(self, config: FakeConfig, port: int = 0, reply: Reply | None = None) -> None:
        super().__init__((HOST, port), _Handler)
        self.config = config
        self.reply = reply
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}
        self.counts: dict[str, int] = {"requests": 0, "ok": 0, **{f: 0 for f in ALL_FAULTS}}

    @property
    def api_base(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (killed, timed out) is not an error of the server."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def stats(self) -> dict[str, int]:
        with self.lock:
            return dict(self.counts)

    def plan(self, h: str) -> tuple[str, float]:
        """``(fault or "ok", latency_s)`` of the next request with hash ``h``."""
        cfg = self.config
        with self.lock:
            n = self.counts["requests"]
            self.counts["requests"] += 1
            attempt = self.seen.get(h, 0)
            self.seen[h] = attempt + 1
        if n < len(cfg.schedule):
            fault = cfg.schedule[n]
        else:
            u, fault, acc = unit(cfg.seed, h, attempt, "fault"), "ok", 0.0
            for name in ALL_FAULTS:
                acc += cfg.rates.get(name, 0.0)
                if u < acc:
                    fault = name
                    break
        with self.lock:
            self.counts[fault] += 1
        z = _NORMAL.inv_cdf(min(max(unit(cfg.seed, h, attempt, "latency"), 1e-12), 1 - 1e-12))
        return fault, cfg.latency_median_s * math.exp(cfg.latency_sigma * z)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall
    server: FakeLMServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(
        self,
        status: int,
        data: bytes,
        ctype: str = "application/json",
        headers: dict[str, str] | None = None,
        length: int | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/stats"):
            self._send(200, json.dumps(self.server.stats(), sort_keys=True).encode())
        elif self.path.rstrip("/").endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "only /v1/chat/completions"}}')
            return
        try:
            body = json.loads(raw)
        except ValueError:  # e.g. a client killed half-way through its request
            self._send(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        fault, latency = self.server.plan(request_hash(body))
        cfg = self.server.config
        time.sleep(cfg.timeout_sleep_s if fault == "timeout" else latency)
        if fault in ("429", "429-retry-after", "500", "503"):
            status = int(fault[:3])
            extra = {"Retry-After": f"{cfg.retry_after_s:g}"} if fault == "429-retry-after" else {}
            msg = json.dumps({"error": {"message": f"fake {fault}", "type": "fake_fault", "code": status}})
            self._send(status, msg.encode(), headers=extra)
            return
        if fault in ("reset", "timeout"):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if fault == "non-json":
            self._send(200, b"<html><body>502 Bad Gateway</body></html>", ctype="text/html")
            return
        content, logprobs = reply_to(body, self.server.reply)
        finish = "stop"
        if fault == "length":
            content, finish = content[: len(content) // 2], "length"
        prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
        usage = {"prompt_tokens": math.ceil(prompt_chars / 4), "completion_tokens": math.ceil(len(content) / 4)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        choice = {
            "index": 0,
            "finish_reason": finish,
            "message": {"role": "assistant", "content": content},
            "logprobs": logprobs,
        }
        data = json.dumps(
            {
                "id": f"fake-{request_hash(body)[:12]}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [choice],
                "usage": usage,
            }
        ).encode()
        if fault == "truncated":
            self._send(200, data[: len(data) // 2], length=len(data))
            self.close_connection = True
            return
        self._send(200, data)


@contextmanager
def serve(config: FakeConfig | None = None, port: int = 0, reply: Reply | None = None) -> Iterator[FakeLMServer]:
    """A running fake server in a background thread (ephemeral port unless ``port``); ``reply``
    replaces the deterministic answer (see :func:`reply_to`)."""
    server = FakeLMServer(config or FakeConfig(), port, reply)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def parse_rates(pairs: list[str]) -> dict[str, float]:
    """``["429=0.01", "500=0.001"]`` → ``{"429": 0.01, "500": 0.001}``."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--rate {pair!r}: expected FAULT=PROBABILITY")
        out[name] = float(value)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trace_crs.lm.fake_server", description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--latency-median", type=float, default=0.0, help="median seconds per answer")
    p.add_argument("--latency-sigma", type=float, default=0.5, help="lognormal sigma of the latency")
    p.add_argument("--rate", action="append", default=[], metavar="FAULT=P", help=f"fault rate; faults: {ALL_FAULTS}")
    p.add_argument("--retry-after", type=float, default=1.0, help="Retry-After seconds of 429-retry-after")
    p.add_argument("--timeout-sleep", type=float, default=30.0, help="seconds a 'timeout' answer is held")
    args = p.parse_args(argv)
    cfg = FakeConfig(
        args.seed,
        args.latency_median,
        args.latency_sigma,
        parse_rates(args.rate),
        retry_after_s=args.retry_after,
        timeout_sleep_s=args.timeout_sleep,
    )
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with serve(cfg, args.port) as server:
        print(server.api_base, flush=True)
        while not stop.wait(3600):
            pass
        print(json.dumps(server.stats(), sort_keys=True), flush=True)  # the last line: what was served
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
