"""The files of an LM records directory (:mod:`trace_crs.lm.records`): gzip JSON-lines shards and
the ``MANIFEST.json`` that counts them.

* A **shard** ``<UTC time>-<pid>-<n>-<random>.jsonl.gz`` is written by one process only
  (:class:`ShardWriter`, which several threads share under a lock), opened with ``open(.., "xb")``
  so no two writers ever share a file, and never reopened: a process appends to its own shards,
  so ``make -j2`` and concurrent threads never interleave.  It is one gzip stream, flushed with
  ``Z_SYNC_FLUSH`` after every record, so every record written is on disk whole; a process
  killed with -9 leaves a stream without its trailer whose last record may be cut.  A shard is
  rotated (closed, a new one opened) once its compressed size reaches :data:`ROTATE_BYTES`, so
  none exceeds 20 MB (the repository's limit per file).  A forked child never writes to its
  parent's shard: it opens its own.
* :func:`read_lines` yields the complete lines of a shard and drops a cut tail (the bytes after
  the last newline, or a damaged deflate block at the end).
* ``MANIFEST.json`` (:func:`update_manifest`) holds one entry per shard (records, compressed
  bytes, counts per step and model, code commit, first and last date) and their totals; each
  writer rewrites its shard's entry every :data:`MANIFEST_EVERY_S` seconds and when it closes the
  shard, under an exclusive ``flock`` on the directory, through :func:`trace_crs.atomic.write_json`
  (whole or not at all).  A writer killed with -9 leaves its entry up to
  :data:`MANIFEST_EVERY_S` behind; ``trace-crs lm records manifest`` rewrites the manifest from
  the shards themselves (a merge of two branches' manifests, too), and ``stats`` counts them.
* :func:`seal_shard` (``trace-crs lm records seal``) rewrites a cut shard as one whole gzip
  stream of the same complete lines, so standard tools (``gzip -t``) accept it.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import secrets
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trace_crs.atomic import pid_alive, write_json

SHARD_SUFFIX = ".jsonl.gz"
ROTATE_BYTES = 16 * 2**20  # below the 20 MB a file may have in the repository, with room for one record
MANIFEST = "MANIFEST.json"
MANIFEST_FORMAT = "trace-lm-records/1"
MANIFEST_EVERY_S = 10.0


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def shard_paths(directory: str | Path) -> list[Path]:
    """The shards of ``directory`` in name order (oldest first: names start with their UTC time)."""
    d = Path(directory)
    return sorted(p for p in d.glob(f"*{SHARD_SUFFIX}") if p.is_file()) if d.is_dir() else []


def new_shard_name(seq: int) -> str:
    """A shard name no other writer can take and that sorts by age: UTC time to the microsecond,
    pid, this writer's sequence number, 6 random hex digits (no host name: shards are published)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}-{os.getpid()}-{seq:04d}-{secrets.token_hex(3)}{SHARD_SUFFIX}"


def _salvage(decomp: Any, data: bytes) -> bytes:
    """What ``decomp`` yields from ``data`` byte by byte until the damage (a zlib error)."""
    out = []
    for i in range(len(data)):
        try:
            out.append(decomp.decompress(data[i : i + 1]))
        except zlib.error:
            break
    return b"".join(out)


def read_lines(path: str | Path) -> Iterator[bytes]:
    """The complete lines of shard ``path`` (without ``\\n``); a tail cut by a kill (the bytes
    after the last newline, a damaged block at the end) is dropped."""
    decomp, pending = zlib.decompressobj(wbits=31), b""
    with open(path, "rb") as f:
        data = f.read(1 << 18)
        while data:
            saved = decomp.copy()
            try:
                out, damaged = decomp.decompress(data), False
            except zlib.error:  # damaged where a killed writer stopped: keep what came before
                out, damaged = _salvage(saved, data), True
            *lines, pending = (pending + out).split(b"\n")
            yield from lines
            if damaged:
                return
            if decomp.eof:  # a closed gzip member; another may follow
                data, decomp = decomp.unused_data, zlib.decompressobj(wbits=31)
                if data:
                    continue
            data = f.read(1 << 18)


def shard_state(path: str | Path) -> str:
    """``"closed"`` (a whole gzip stream: its writer finished it; it never changes again),
    ``"writing"`` (no end yet and its writer, the pid in its name, is alive) or ``"cut"`` (no
    end and no writer: killed; readable up to its last whole record)."""
    decomp = zlib.decompressobj(wbits=31)
    with open(path, "rb") as f:
        try:
            while (chunk := f.read(1 << 18)) and not decomp.eof:
                decomp.decompress(chunk)
        except zlib.error:
            return "cut"
    if decomp.eof:
        return "closed"
    pid = Path(path).name.split("-")[1]
    return "writing" if pid.isdigit() and pid_alive(int(pid)) else "cut"


def seal_shard(path: str | Path) -> bool:
    """Rewrite the ``cut`` shard ``path`` (:func:`shard_state`) as one closed gzip stream of its
    complete lines, the same name, the same records in the same order: written beside it, read
    back and compared, then put in its place (:func:`os.replace`); a cut tail stays dropped.
    Returns whether it was rewritten (a closed shard, or one still being written, is left as is)."""
    path = Path(path)
    if shard_state(path) != "cut":
        return False
    lines = list(read_lines(path))
    tmp = path.with_name(f".{path.name}.seal-{os.getpid()}")
    try:
        with open(tmp, "xb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.writelines(line + b"\n" for line in lines)
        if gzip.decompress(tmp.read_bytes()).split(b"\n")[:-1] != lines:  # pragma: no cover - a disk fault
            raise OSError(f"{path}: the sealed copy does not read back as the shard's records")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return True


class ShardWriter:
    """Appends lines to this process's current shard of ``directory`` (module docstring)."""

    def __init__(self, directory: str | Path, rotate_bytes: int = ROTATE_BYTES, commit: str | None = None) -> None:
        self.directory, self.rotate_bytes, self.commit = Path(directory), rotate_bytes, commit
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._raw: Any = None
        self._gz: gzip.GzipFile | None = None
        self.path: Path | None = None
        self._seq = 0
        self._counts: Counter[tuple[str, str]] = Counter()
        self._first = self._last = ""
        self._synced = 0.0

    def append(self, line: str, step: str, model: str) -> Path:
        """Write one record line (no newline in it) and flush it to disk; returns its shard."""
        data = line.encode("utf-8") + b"\n"
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the open shard is the parent's
                self._pid, self._raw, self._gz, self.path, self._seq = os.getpid(), None, None, None, 0
            if self._gz is None or self._raw.tell() >= self.rotate_bytes:
                self._rotate()
            assert self._gz is not None and self.path is not None
            self._gz.write(data)
            self._gz.flush(zlib.Z_SYNC_FLUSH)
            self._raw.flush()
            self._counts[(step, model)] += 1
            self._last = utc_now()
            self._first = self._first or self._last
            if time.monotonic() - self._synced >= MANIFEST_EVERY_S:
                self._sync_manifest()
            return self.path

    def _rotate(self) -> None:
        self._close_shard()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._seq += 1
        self.path = self.directory / new_shard_name(self._seq)
        self._raw = open(self.path, "xb")  # noqa: SIM115 - held open across appends, closed in _close_shard
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)
        self._counts, self._first, self._last = Counter(), "", ""

    def _close_shard(self) -> None:
        if self._gz is None:
            return
        self._gz.close()
        self._raw.close()
        self._sync_manifest()
        self._gz = self._raw = None

    def _sync_manifest(self) -> None:
        if self.path is None or not self._counts:
            return
        counts: dict[str, dict[str, int]] = {}
        for (step, model), n in sorted(self._counts.items()):
            counts.setdefault(step, {})[model] = n
        entry = {
            "records": sum(self._counts.values()),
            "bytes": self.path.stat().st_size,
            "counts": counts,
            "commit": self.commit,
            "first": self._first,
            "last": self._last,
        }
        update_manifest(self.directory, {self.path.name: entry})
        self._synced = time.monotonic()

    def close(self) -> None:
        """Close the current shard (gzip trailer written) and record it in the manifest."""
        with self._lock:
            if self._pid == os.getpid():
                self._close_shard()


def update_manifest(directory: str | Path, shards: dict[str, dict[str, Any]], replace: bool = False) -> dict[str, Any]:
    """Set the entries of ``shards`` in ``directory``'s manifest (all of them when ``replace``)
    and recompute its totals, under an exclusive lock on the directory; returns the manifest."""
    directory = Path(directory)
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        path = directory / MANIFEST
        try:
            current = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            current = {}
        entries = dict(shards) if replace else {**current.get("shards", {}), **shards}
        manifest = manifest_of(entries)
        write_json(manifest, path, indent=1)
        return manifest
    finally:
        os.close(fd)  # releases the lock


def manifest_of(shards: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The manifest of the shard entries ``shards``: them, their totals, the newest commit and date."""
    counts: dict[str, dict[str, int]] = {}
    models: Counter[str] = Counter()
    for entry in shards.values():
        for step, per_model in entry["counts"].items():
            for model, n in per_model.items():
                counts.setdefault(step, {})[model] = counts.get(step, {}).get(model, 0) + n
                models[model] += n
    newest = max(shards.values(), key=lambda e: e.get("last") or "", default={})
    return {
        "format": MANIFEST_FORMAT,
        "records": sum(e["records"] for e in shards.values()),
        "bytes": sum(e["bytes"] for e in shards.values()),
        "counts": {step: dict(sorted(per.items())) for step, per in sorted(counts.items())},
        "models": dict(sorted(models.items())),
        "commit": newest.get("commit"),
        "commits": sorted({e["commit"] for e in shards.values() if e.get("commit")}),
        "date": utc_now(),
        "shards": dict(sorted(shards.items())),
    }
