"""The local OpenAI-compatible llama.cpp server (paper §5 "Models", offline).

``LlamaServer`` runs :mod:`trace_crs.lm.llama_worker` (llama-cpp-python's model, chat handler
and request defaults, with log-prob answers read from the last prompt position only) on
127.0.0.1 at a free port, waits until ``GET /v1/models`` lists its alias, and is a context
manager that always stops the process (terminate → kill after 10 s), also at interpreter exit,
and on Linux the child is killed if this process dies and keeps this process's niceness
(:func:`trace_crs.lm.process.server_child`).
``shared_pool`` reference-counts a :class:`ServerPool` per configured (weights, n_ctx, threads,
servers), so that all LLM baselines of one run share the same processes.

A faster local backend: the worker answers a log-prob ranking call without
the full-vocabulary logits of every prompt token (2.3x less time per call with the 0.5B model,
same answers; see :mod:`trace_crs.lm.llama_worker`).  llama-cpp-python answers one request at a
time (one model behind a lock, no parallel slots), so throughput comes from several 1-thread
server processes, one per free core (the GGUF file is memory-mapped, so they share the weights'
pages), with the runner's ``concurrency`` equal to their number.  Each calling thread sticks to
one server (:meth:`ServerPool.api_base`): the calls of one dialogue — the per-candidate
log-prob calls of a turn and the next turn, which extends the same conversation — run back to
back on the server that still holds their common prompt prefix in its KV cache.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from trace_crs.lm.config import NO_DRAFT
from trace_crs.lm.process import server_child
from trace_crs.net import HOST, free_port

_LIVE: set[LlamaServer] = set()
_SHARED: dict[tuple, list] = {}  # key -> [server, refcount]
_LOCK = threading.Lock()


class LlamaServer:
    """One llama.cpp server process serving ``model_path`` under the name ``alias``."""

    slots = 0  # parallel slots of the Trace worker (0 = one request at a time)
    slot_kv = "private"  # their KV layout (lm.config.SLOT_KV)
    draft: tuple[str, int, int] = NO_DRAFT  # (lm.draft, lm.draft_tokens, lm.draft_ngram): lm.prompt_lookup

    def __init__(
        self,
        model_path: str | Path,
        alias: str,
        n_ctx: int = 4096,
        n_threads: int = 2,
        startup_timeout_s: float = 180.0,
        program: str = "trace",
        log_path: str | Path | None = None,
        slots: int = 0,
        slot_kv: str = "private",
        draft: tuple[str, int, int] = NO_DRAFT,
    ) -> None:
        self.model_path = Path(model_path)
        if not self.model_path.exists():
            raise FileNotFoundError(f"{self.model_path}: GGUF weights not found (run `make models`)")
        self.alias, self.n_ctx, self.n_threads = alias, n_ctx, n_threads
        self.startup_timeout_s, self.program = startup_timeout_s, program
        self.log_path = Path(log_path) if log_path else None
        if slots and program != "trace":
            raise ValueError("parallel slots need the Trace worker (program='trace')")
        self.slots = slots  # > 0: one process decoding that many requests in one batch (lm.batch_engine)
        self.slot_kv = slot_kv
        if draft[0] != "none" and (program != "trace" or slots):
            raise ValueError("prompt-lookup drafts need the one-sequence Trace worker (program='trace', no slots)")
        self.draft = draft
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None

    @property
    def api_base(self) -> str:
        """OpenAI-compatible base URL (``http://127.0.0.1:<port>/v1``)."""
        if self.port is None:
            raise RuntimeError("server not started")
        return f"http://{HOST}:{self.port}/v1"

    def command(self, port: int) -> list[str]:
        """The exact command line that starts the server: ``program`` ``trace`` (the worker) or
        ``llama_cpp`` (llama-cpp-python's server with ``logits_all``, the reference)."""
        module, extra = (
            ("llama_cpp.server", ["--logits_all", "true"])
            if self.program == "llama_cpp"
            else ("trace_crs.lm.llama_worker", self._worker_flags())
        )
        return [
            sys.executable,
            "-m",
            module,
            "--model",
            str(self.model_path),
            "--model_alias",
            self.alias,
            "--host",
            HOST,
            "--port",
            str(port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            "--n_gpu_layers",
            "0",
            *extra,
            "--verbose",
            "false",
        ]

    def _worker_flags(self) -> list[str]:
        """The Trace worker's flags beyond the model's: slots or drafts (none when off)."""
        if self.slots:
            return ["--parallel", str(self.slots), "--slot_kv", self.slot_kv]
        name, tokens, ngram = self.draft
        if name != "none":
            return ["--draft", name, "--draft_tokens", str(tokens), "--draft_ngram", str(ngram)]
        return []

    def start(self) -> LlamaServer:
        """Start the process and block until it answers, or raise RuntimeError with its log."""
        return self.launch().wait_ready()

    def launch(self) -> LlamaServer:
        """Start the process without waiting for it.  Call from a thread that outlives the server:
        PR_SET_PDEATHSIG fires when the *thread* that forked the child exits."""
        try:
            import llama_cpp  # noqa: F401
        except ImportError as exc:
            raise RuntimeError("llama-cpp-python is not installed; run `make llama`") from exc
        self.port = free_port()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="llama_server_", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        with open(self.log_path, "ab") as log:  # the child keeps its own handle
            self.proc = subprocess.Popen(
                self.command(self.port),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=server_child,
            )
        _LIVE.add(self)
        return self

    def wait_ready(self) -> LlamaServer:
        """Block until the launched process answers, or stop it and raise RuntimeError with its log."""
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                code = self.proc.returncode if self.proc is not None else None
                self.stop()
                tail = self.log_path.read_text(errors="replace")[-2000:] if self.log_path else ""
                raise RuntimeError(f"llama.cpp server exited with {code} (log {self.log_path}): {tail}")
            if self.healthy():
                return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama.cpp server not healthy after {self.startup_timeout_s} s")

    def healthy(self) -> bool:
        """True when ``GET /v1/models`` answers and lists ``alias``."""
        try:
            with urllib.request.urlopen(f"{self.api_base}/models", timeout=2) as resp:
                ids = [m["id"] for m in json.load(resp)["data"]]
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError, KeyError):
            return False
        return self.alias in ids

    def stop(self) -> None:
        """Terminate the process (kill after 10 s); idempotent."""
        proc, self.proc = self.proc, None
        _LIVE.discard(self)
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServerPool:
    """Running servers of one model; each calling thread is bound to one of them, round-robin
    in the order threads first ask (module docstring)."""

    def __init__(self, servers: list[LlamaServer]) -> None:
        if not servers:
            raise ValueError("ServerPool needs at least one server")
        self.servers = servers
        self._next, self._lock, self._local = 0, threading.Lock(), threading.local()

    def __len__(self) -> int:
        return len(self.servers)

    def api_base(self) -> str:
        """The base URL of the calling thread's server."""
        index = getattr(self._local, "index", None)
        if index is None:
            with self._lock:
                index, self._next = self._next, (self._next + 1) % len(self.servers)
            self._local.index = index
        return self.servers[index].api_base

    def __deepcopy__(self, memo: dict) -> ServerPool:
        return self  # shared processes, never copied with an LM

    def start(self) -> ServerPool:
        """Launch every server, then wait for each (they load concurrently); on a failure stop all."""
        try:
            for server in self.servers:
                server.launch()
            for server in self.servers:
                server.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


@contextmanager
def shared_pool(
    model_path: str | Path,
    alias: str,
    n_ctx: int,
    plan: tuple[int, int],
    key: tuple = (),
    program: str = "trace",
    slots: int = 0,
    slot_kv: str = "private",
    draft: tuple[str, int, int] = NO_DRAFT,
) -> Iterator[ServerPool]:
    """``plan[0]`` servers of ``plan[1]`` threads each, shared by nested users with the same
    ``key`` (the *configured* settings, so an auto plan re-resolved under a different load
    joins the running pool instead of starting a second one); stopped by the last user."""
    key = (str(Path(model_path).resolve()), alias, n_ctx, program, slots, slot_kv, draft, key or plan)
    with _LOCK:
        entry = _SHARED.get(key)
        if entry is None:
            servers, threads = plan
            pool = ServerPool(
                [
                    LlamaServer(
                        model_path, alias, n_ctx, threads, program=program, slots=slots, slot_kv=slot_kv, draft=draft
                    )
                    for _ in range(servers)
                ]
            )
            entry = _SHARED[key] = [pool.start(), 0]
        entry[1] += 1
    try:
        yield entry[0]
    finally:
        with _LOCK:
            entry[1] -= 1
            if entry[1] == 0:
                _SHARED.pop(key, None)
                entry[0].stop()


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop()
