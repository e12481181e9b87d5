"""LMConfig → a DSPy LM, with on-disk record/replay and per-turn usage (paper §5 "Models": every LLM call through DSPy and litellm).

``open_lm(cfg)`` is a context manager yielding a :class:`TraceLM` (a ``dspy.LM``):

* ``model: local`` starts (or shares) the llama.cpp servers on the configured GGUF weights
  (``lm.config.server_plan``: one 1-thread process per free core by default) and points DSPy
  at them as ``openai/<alias>``, each calling thread at its own server
  (:class:`trace_crs.lm.server.ServerPool`); the alias embeds the weights' SHA-256, so cache
  keys differ per weights.  The servers are stopped on exit.
* any other model is handed to litellm as is (API key from the environment).

Caching: DSPy's cache keys a request on model id + messages + every decoding parameter
(``api_base``/``api_key`` excluded, so the server's random port never splits the cache).
``open_lm`` points DSPy's disk cache at ``cfg.cache_dir`` (default ``~/.cache/trace-crs/lm``, outside the work tree so a fresh clone replays it) — the
only global DSPy setting it touches, and only when called, never at import.

Usage (:mod:`trace_crs.lm.usage`): ``TraceLM.forward`` adds each call's token usage, cost and
model seconds to the tally of the innermost ``recording_usage()`` block of the current thread/context.  DSPy returns a
cache hit without usage, so a replayed run would report zero tokens and zero seconds and the
records' cost columns (the paper states its API cost only in checklist item 8, "Experiments
Compute Resources"; here they feed the oracle knapsack) would change with the cache state.  Instead, the
usage measured when a request was first sent to the model is kept beside DSPy's cache
(``<cache_dir>/usage``, keyed by the request) and a replay reports it (``replayed_s`` sums the
recorded seconds of the hits).  A hit with no recorded usage (cached before this record
existed) is sent to the model once more with the cache bypassed, to measure it; the cached
answer is still the one returned.  All of this happens only inside a ``recording_usage()``
block (the baselines); other callers (the judge) replay without touching the model.

LM records (:mod:`trace_crs.lm.records`): when ``TRACE_LM_RECORDS`` names a records directory,
``TraceLM.forward`` first looks the call up there and, when it is recorded, returns the recorded
response with its recorded usage (a replay, as above) without a server or the network; a call
not recorded takes the path above and is appended, with the usage measured when it went to the
model.  ``open_lm`` then starts the local servers at the first call not recorded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import dspy

from trace_crs.lm.build import features, installed_build_tag, installed_system_info
from trace_crs.lm.config import LMConfig, local_plan
from trace_crs.lm.faults import call_with_retries
from trace_crs.lm.records import active_records, load_response, make_record
from trace_crs.lm.records_key import record_key
from trace_crs.lm.records_pool import LazyPool
from trace_crs.lm.server import ServerPool, shared_pool
from trace_crs.lm.usage import count_call, measured_usage, open_tallies, usage_store, was_truncated
from trace_crs.lm.weights import get_weights, verified_path

LOCAL_API_KEY = "sk-local-no-key"


END_MARKER = "[[ ## completed ## ]]"  # DSPy ChatAdapter's last line: nothing useful follows it


def local_decoding(cfg: LMConfig, limit: Any, extra_body: dict[str, Any], stop: Any) -> dict[str, Any]:
    """The request settings only a local model gets (README "Local model settings"):

    * ``max_tokens`` repeated in the body: litellm sends ``max_completion_tokens``, which
      llama-cpp-python's server ignores (it would generate until EOS);
    * ``stop`` at DSPy's end marker, so the model does not decode past the last field;
    * the Trace worker's repetition guard (``trace_repeat_ngram``, :class:`trace_crs.lm.llama_requests.RepeatStop`).

    Not applied to API models: some (reasoning models) reject ``stop``, and they do not loop.
    """
    body = {**extra_body, "max_tokens": limit}
    if cfg.server == "trace" and cfg.repeat_ngram:
        body["trace_repeat_ngram"] = cfg.repeat_ngram
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    return {"extra_body": body, "stop": stops if END_MARKER in stops else [*stops, END_MARKER]}


# Never part of what a request *is*: where it is sent, with which key, how long to wait.
_NOT_THE_REQUEST = ["api_key", "api_base", "base_url", "timeout"]


class TraceLM(dspy.LM):
    """``dspy.LM`` that reports each call's usage to :func:`recording_usage` (see the module
    docstring for replays)."""

    def __init__(
        self,
        model: str,
        *,
        trace_config: LMConfig | None = None,
        endpoints: ServerPool | LazyPool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(model, **kwargs)
        # DSPy imports litellm at the first call; two threads making their first calls at once (a
        # judge with --workers, concurrent dialogues) would see a partially initialised module
        import litellm  # noqa: F401

        self.trace_config, self.endpoints = trace_config, endpoints

    def _send(self, prompt: Any, messages: Any, kwargs: dict[str, Any]) -> tuple[Any, float | None]:
        """One request through DSPy's engine (what ``dspy.LM.forward`` does, keeping the call's
        price estimate, which the provider response drops), retried on transient faults
        (:func:`trace_crs.lm.faults.call_with_retries`)."""
        from dspy.clients.execution import execute, prepare

        def once() -> Any:
            return execute(self, prepare(self, prompt, messages, dict(kwargs), direct=True))

        cfg = self.trace_config
        result = once() if cfg is None else call_with_retries(once, cfg.http_retries, cfg.backoff_s, cfg.backoff_max_s)
        response = result.provider_response()
        # DSPy's normalised response says finish_reason "stop" for every choice; keep the model's own
        # (a reply cut at max_tokens says "length", also when replayed from the cache)
        reasons = [getattr(r, "finish_reason", None) for r in getattr(result, "responses", ()) or ()]
        choices = response.get("choices") if isinstance(response, dict) else None
        if choices and len(reasons) == len(choices):
            for choice, reason in zip(choices, reasons, strict=False):
                if isinstance(choice, dict) and reason:
                    choice["finish_reason"] = reason
        return response, result.cost

    def forward(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        if self.trace_config is not None and self.trace_config.is_local:
            kwargs.update(
                local_decoding(
                    self.trace_config,
                    kwargs.get("max_tokens", self.kwargs.get("max_tokens")),
                    kwargs.get("extra_body", {}),
                    kwargs.get("stop"),
                )
            )
        request = self._request(prompt, messages, kwargs)
        key = dspy.cache.cache_key(request, _NOT_THE_REQUEST)
        records = active_records()
        with single_flight(key):
            if records is not None and (hit := records.get(record_key(request))) is not None:
                response = load_response(hit["response"])  # answered by the LM records: no server, no network
                count_call(key, hit["usage"], cache_hit=True, replayed=True, truncated=was_truncated(response))
                return response
            if self.endpoints is not None:  # not part of the request (``_NOT_THE_REQUEST``)
                kwargs["api_base"] = self.endpoints.api_base()
            return self._forward(prompt, messages, kwargs, key)

    def _request(self, prompt: Any, messages: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        """What is sent: model, prompt or messages, every setting (not ``cache``, ``api_base``)."""
        return {
            "model": self.model,
            "prompt": prompt,
            "messages": messages,
            **self.kwargs,
            **{k: v for k, v in kwargs.items() if k not in ("cache", "api_base")},
        }

    def _forward(self, prompt: Any, messages: Any, kwargs: dict[str, Any], key: str) -> Any:
        """A call the LM records do not answer: computed (:meth:`_compute`) and, when records are
        active, appended to them."""
        records = active_records()
        response, usage, measured = self._compute(prompt, messages, kwargs, key, records is not None)
        if records is not None:
            request = self._request(prompt, messages, kwargs)
            records.append(make_record(record_key(request), request, response, usage, self._cpu(), measured))
        return response

    def _cpu(self) -> str | None:
        """The llama.cpp build's CPU features, for a local model's records (None otherwise)."""
        if self.trace_config is None or not self.trace_config.is_local:
            return None
        return ",".join(features(installed_system_info())) or None

    def _compute(
        self, prompt: Any, messages: Any, kwargs: dict[str, Any], key: str, recording: bool = False
    ) -> tuple[Any, dict[str, float], bool]:
        """Send (or replay from DSPy's cache) one request and count it; returns the response, its
        usage and whether that usage was measured when the call went to the model (not for a
        DSPy cache hit from before usage was stored, made outside any tally: it is measured
        again only inside one, as before; its record says ``measured: false``)."""
        start = time.perf_counter()
        response, cost = self._send(prompt, messages, kwargs)
        usage, hit = (
            measured_usage(response, time.perf_counter() - start, cost),
            bool(getattr(response, "cache_hit", False)),
        )
        recorded, cut, measured = None, was_truncated(response), not hit
        if self.trace_config is not None and (open_tallies() or recording):  # only recorded usage is needed
            store = usage_store(self.trace_config.cache_dir)
            recorded = store.get(key) if hit else None
            if hit and recorded is None and open_tallies():  # cached before usage was recorded: measure it now
                start = time.perf_counter()
                fresh, cost = self._send(prompt, messages, {**kwargs, "cache": False})
                usage, measured = measured_usage(fresh, time.perf_counter() - start, cost), True
            measured = measured or recorded is not None
            if recorded is None and measured:
                store.set(key, usage)
        count_call(key, recorded or usage, cache_hit=hit, replayed=recorded is not None, truncated=cut)
        return response, recorded or (usage if measured else {**usage, "latency_s": 0.0}), measured


_FLIGHTS: dict[str, list] = {}  # request key -> [lock, number of callers holding or waiting]
_FLIGHTS_LOCK = threading.Lock()


@contextmanager
def single_flight(key: str) -> Iterator[None]:
    """Run the callers of one request key one at a time.  Concurrent dialogues often send the
    same request (DST re-extracts a shared "Not that one."); the first one goes to the model,
    the others wait and then replay it from the cache with its recorded usage — so the model
    sees each request once (as in a serial run) and concurrency never changes what is sent."""
    with _FLIGHTS_LOCK:
        entry = _FLIGHTS.setdefault(key, [threading.Lock(), 0])
        entry[1] += 1
    try:
        with entry[0]:
            yield
    finally:
        with _FLIGHTS_LOCK:
            entry[1] -= 1
            if entry[1] == 0:
                del _FLIGHTS[key]


def model_id(cfg: LMConfig) -> str:
    """The litellm model string DSPy uses (``openai/<alias with weights sha256>`` when local, plus
    the build's tag for a non-portable llama.cpp build: :mod:`trace_crs.lm.build`)."""
    return f"openai/{local_alias(cfg)}" if cfg.is_local else cfg.model


def local_alias(cfg: LMConfig) -> str:
    """The name the local servers answer to: the weights' alias and the llama.cpp build's tag."""
    return get_weights(cfg.weights).alias + installed_build_tag()


def build_lm(cfg: LMConfig, api_base: str | None = None, endpoints: ServerPool | LazyPool | None = None) -> TraceLM:
    """The DSPy LM for ``cfg`` without starting anything (no network until called).

    Transient endpoint faults are retried by :meth:`TraceLM._send` (:mod:`trace_crs.lm.faults`,
    counted), unparseable answers by the baselines (:mod:`trace_crs.baselines.llm_common`), so
    DSPy's/litellm's own ``num_retries`` is 0.
    """
    extra: dict[str, Any] = {"timeout": cfg.timeout_s}
    if cfg.is_local:
        extra.update(api_key=LOCAL_API_KEY, seed=cfg.seed)
    base = api_base or cfg.api_base or (endpoints.servers[0].api_base if isinstance(endpoints, ServerPool) else None)
    if base:
        extra["api_base"] = base
    return TraceLM(
        model_id(cfg),
        trace_config=cfg,
        endpoints=endpoints,
        temperature=cfg.temperature,
        max_tokens=cfg.max_tokens,
        num_retries=0,
        cache=True,
        **extra,
    )


def configure_disk_cache(cache_dir: str | Path) -> None:
    """Point DSPy's request cache at ``cache_dir`` (no-op when it already is)."""
    path = str(Path(cache_dir).expanduser().resolve())
    current = getattr(getattr(dspy.cache, "disk_cache", None), "directory", None)
    if current != path:
        Path(path).mkdir(parents=True, exist_ok=True)
        dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=path)


@contextmanager
def open_lm(cfg: LMConfig) -> Iterator[TraceLM]:
    """A ready LM for ``cfg``; for ``local`` the llama.cpp servers run for the block only — from
    its start, or, when LM records are active (:mod:`trace_crs.lm.records`), from the first call
    they do not answer (:class:`~trace_crs.lm.records_pool.LazyPool`: none if all are recorded)."""
    configure_disk_cache(cfg.cache_dir)
    if not cfg.is_local:
        yield build_lm(cfg)
        return

    def servers() -> AbstractContextManager[ServerPool]:
        path = verified_path(cfg.weights, cfg.models_dir)
        plan = local_plan(cfg)
        return shared_pool(
            path,
            local_alias(cfg),
            cfg.n_ctx,
            plan,
            key=(cfg.n_threads, cfg.servers),
            program=cfg.server,
            slots=cfg.slots,
            slot_kv=cfg.slot_kv,
            draft=cfg.draft_settings,  # a server setting, not in the request
        )

    if active_records() is None:
        with servers() as pool:
            yield build_lm(cfg, endpoints=pool)
        return
    lazy = LazyPool(servers)
    try:
        yield build_lm(cfg, endpoints=lazy)
    finally:
        lazy.close()
    if lazy.failure is not None:  # the block's calls fell back on it: fail as an eager start would
        raise lazy.failure
