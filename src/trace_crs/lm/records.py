"""LLM records: every LLM call of a build, recorded once with everything that decided it, and
replayed from the record afterwards (STYLE "Recorded model outputs"; as ALCE, AlpacaEval and HELM
ship their models' outputs).

**Where.**  A records directory (a profile's is ``data/lm-records/<profile>/``, committed with the
repository) is active when the environment variable ``TRACE_LM_RECORDS`` names it (``make``
exports it, so it reaches every subprocess and papermill notebook; ``off`` or empty disables;
:func:`use_records` overrides it for a block of one thread/context).

**Key.** A call is keyed by :func:`~trace_crs.lm.records_key.record_key`: the SHA-256 of the
canonical JSON (sorted keys, no spaces, UTF-8) of the request ``TraceLM.forward`` builds — model
id, messages, prompt, and every sampling and decoding setting (temperature, max_tokens, seed,
stop, extra_body, logprobs, top_logprobs, rollout_id …) — without where it is sent, with which
key or how long to wait (:data:`~trace_crs.lm.records_key.NOT_THE_REQUEST`): what DSPy's cache
key covers. The local model id embeds the weights' SHA-256 and the llama.cpp build tag
(:func:`trace_crs.lm.backend.model_id`), the messages carry the prompt's version tag
(:mod:`trace_crs.prompts`), so a new weights file, build, prompt version or setting is a new
key. The key is recomputable from a record's own ``request`` with the standard library alone
(:mod:`trace_crs.lm.records_key`). Records made with a non-portable llama.cpp build (``make
llama-native``) therefore replay only on a build with the same tag: a profile's records are made
with the portable build (:mod:`trace_crs.lm.build`).

**Record** (one JSON line, :func:`make_record`): ``v`` (format 1), ``key``, ``model``, ``step``
(:func:`~trace_crs.lm.records_key.step_of`), ``request`` (the keyed request), ``response``
(``{"type": "litellm"|"dict", "body": …}``: the provider response DSPy returned — choices with
message content, logprobs when asked, the model's own ``finish_reason`` — without its usage),
``usage`` (``prompt_tokens``, ``completion_tokens``, ``cost_usd``, ``latency_s``: measured when
the call went to the model), ``measured`` (false for a call taken from a DSPy cache made before
usage was stored, outside any usage tally: its usage is what DSPy's cache hit reports, zero, as
a cache replay reported it before the records), and provenance: ``date`` (UTC), ``commit`` (the
code's git commit, ``-dirty`` when the package differs from it, or null) and ``cpu`` (the
llama.cpp build's CPU features for a local model, else null).

**Files.**  Gzip JSON-lines shards, one writer process each, rotated below 20 MB, and a
``MANIFEST.json`` with counts per step and model, code commit and date
(:mod:`trace_crs.lm.records_shards`).  Only the manifest is ever rewritten: a shard is
append-only and a record is never changed; a reader takes the first record of a key in
shard-name order (the oldest).

**Replay** (:mod:`trace_crs.lm.backend`).  When a call's key is recorded, ``TraceLM.forward``
returns the recorded response rebuilt as DSPy's own cache hit returns it (usage emptied,
``cache_hit`` set) without any server or network, and reports the recorded usage to the usage
tallies as a cache replay (``count_call(..., replayed=True)``).  A missing call is computed (from
DSPy's cache if it holds it, with its recorded usage, else by the model) and appended.  The local
servers of ``open_lm`` start at the first call the records do not answer
(:mod:`trace_crs.lm.records_pool`), so a fully recorded block starts none.
Each process's :class:`Records` counts the look-ups it answered (``replayed``) and did not
(``missed``); when ``TRACE_LM_TALLY`` names a directory (``book/tools/pipeline.py timed`` sets it
for each step of ``make paper``), the process writes those counts there at exit, and the step's
timing record sums them: the Reproduce page's "replayed / computed" (:func:`write_tally`).  ``trace-crs lm records verify`` recomputes a seeded sample
(:mod:`trace_crs.lm.records_verify`).

**Not covered.**  Only calls through ``TraceLM.forward`` are recorded (every LLM call of the
package; a bare ``dspy.LM``, a ``DummyLM`` or DSPy's async path are not).  Two processes that
compute the same missing call at once both append it (``records stats`` counts duplicates; the
oldest is replayed).  The records are not a make prerequisite: appending to them never makes a
result out of date.
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_json
from trace_crs.errors import DataError
from trace_crs.lm.records_key import canonical_json, keyed_request, step_of
from trace_crs.lm.records_shards import ShardWriter, read_lines, shard_paths, utc_now

ENV = "TRACE_LM_RECORDS"
TALLY_ENV = "TRACE_LM_TALLY"  # a directory: each process writes its replayed/computed counts there at exit
FORMAT = 1
OFF = ("", "off")


@functools.cache
def code_commit() -> str | None:
    """The git commit of the code making the calls, ``-dirty`` appended when the package's files
    differ from it (null outside a git work tree)."""
    here = Path(__file__).resolve().parents[1]  # the trace_crs package

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True, timeout=30)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0 or not head.stdout.strip():
            return None
        dirty = git("diff", "--quiet", "HEAD", "--", ".").returncode == 1
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty else "")


def dump_response(response: Any) -> dict[str, Any]:
    """The stored form of a provider response (its usage is in the record's ``usage``)."""
    if isinstance(response, dict):
        body = json.loads(canonical_json({k: v for k, v in response.items() if k not in ("usage", "cache_hit")}))
        return {"type": "dict", "body": body}
    body = json.loads(canonical_json(response.model_dump()))
    body.pop("usage", None)
    return {"type": "litellm", "body": body}


def load_response(stored: dict[str, Any]) -> Any:
    """The response DSPy returned, as its cache returns a hit: usage emptied, ``cache_hit`` set."""
    body = json.loads(json.dumps(stored["body"]))  # a private copy: callers may change the response
    if stored["type"] == "dict":
        from dspy.clients.call_result import attributes

        return attributes({**body, "usage": {}, "cache_hit": True})
    import litellm

    response = litellm.ModelResponse(**body)
    response.usage = {}  # type: ignore[attr-defined]  # as DSPy empties a cache hit's usage
    object.__setattr__(response, "cache_hit", True)
    return response


def make_record(
    key: str, request: dict[str, Any], response: Any, usage: dict[str, float], cpu: str | None, measured: bool = True
) -> dict[str, Any]:
    """One record (module docstring, "Record")."""
    kept = keyed_request(request)
    return {
        "v": FORMAT,
        "key": key,
        "model": kept.get("model"),
        "step": step_of(kept.get("messages")),
        "request": kept,
        "response": dump_response(response),
        "usage": {k: usage[k] for k in ("prompt_tokens", "completion_tokens", "cost_usd", "latency_s")},
        "measured": measured,
        "date": utc_now(),
        "commit": code_commit(),
        "cpu": cpu,
    }


def iter_records(directory: str | Path) -> Iterator[dict[str, Any]]:
    """Every record of ``directory``'s shards in shard order (a cut tail dropped); a complete
    line that is not a record is a :class:`~trace_crs.errors.DataError` naming shard and line."""
    for path in shard_paths(directory):
        yield from iter_records_of(path)


def iter_records_of(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of one shard (:func:`iter_records`)."""
    for number, line in enumerate(read_lines(path), start=1):
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise DataError(f"not JSON ({exc})", file=str(path), line=number) from None
        missing = [k for k in ("key", "response", "usage") if not isinstance(record, dict) or k not in record]
        if missing:
            raise DataError(f"not an LM record: no {missing}", file=str(path), line=number)
        yield record


class Records:
    """One records directory: the index of its recorded replies (read once, at the first look-up)
    and this process's shard writer."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.writer = ShardWriter(self.directory, commit=code_commit())
        self._index: dict[str, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self.replayed = self.missed = 0

    def _loaded(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            if self._index is None:
                index: dict[str, dict[str, Any]] = {}
                for record in iter_records(self.directory):
                    index.setdefault(record["key"], _slim(record))
                self._index = index
            return self._index

    def get(self, key: str) -> dict[str, Any] | None:
        """The recorded ``{"model", "response", "usage"}`` of ``key``, or None (counted in
        :attr:`replayed` / :attr:`missed`: what this process replayed and had to compute)."""
        hit = self._loaded().get(key)
        with self._lock:
            if hit is None:
                self.missed += 1
            else:
                self.replayed += 1
        return hit

    def __len__(self) -> int:
        return len(self._loaded())

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` to this process's shard and make it answer later look-ups here."""
        index = self._loaded()
        self.writer.append(canonical_json(record), record["step"], record["model"] or "")
        with self._lock:
            index.setdefault(record["key"], _slim(record))

    def close(self) -> None:
        self.writer.close()


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    return {"model": record.get("model"), "response": record["response"], "usage": record["usage"]}


_STORES: dict[Path, Records] = {}
_STORES_LOCK = threading.Lock()
_OVERRIDE: contextvars.ContextVar[str | None] = contextvars.ContextVar("trace_lm_records", default=None)


def records_dir() -> Path | None:
    """The active records directory (:func:`use_records`, else ``TRACE_LM_RECORDS``), or None."""
    raw = _OVERRIDE.get()
    raw = os.environ.get(ENV, "") if raw is None else raw
    return None if raw.strip().lower() in OFF else Path(raw).expanduser().resolve()


def active_records() -> Records | None:
    """The :class:`Records` of the active directory (one per directory and process), or None."""
    directory = records_dir()
    if directory is None:
        return None
    with _STORES_LOCK:
        if directory not in _STORES:
            _STORES[directory] = Records(directory)
        return _STORES[directory]


@contextmanager
def use_records(directory: str | Path | None) -> Iterator[None]:
    """Make ``directory`` (None: none) the active records directory inside the block, whatever
    ``TRACE_LM_RECORDS`` says."""
    token = _OVERRIDE.set("off" if directory is None else str(directory))
    try:
        yield
    finally:
        _OVERRIDE.reset(token)


def write_tally(stores: list[Records]) -> Path | None:
    """This process's look-ups (``{"replayed", "computed", "directories"}``) as one JSON file in
    the ``TRACE_LM_TALLY`` directory (none when unset or when no look-up was made); written
    whole (:func:`trace_crs.atomic.write_json`), named by the process id so concurrent processes
    never collide."""
    target = os.environ.get(TALLY_ENV, "").strip()
    replayed, computed = sum(s.replayed for s in stores), sum(s.missed for s in stores)
    if not target or not (replayed or computed):
        return None
    body = {"replayed": replayed, "computed": computed, "directories": sorted(str(s.directory) for s in stores)}
    return write_json(body, Path(target) / f"{os.getpid()}.json")


@atexit.register
def close_all() -> None:
    """Close every shard this process wrote (gzip trailer, manifest entry) and write its tally."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
    for store in stores:
        store.close()
    write_tally(stores)
