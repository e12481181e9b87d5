"""LM records, storage side (trace_crs.lm.records, lm.records_shards): the key and what changes it,
shards cut by a kill, rotation, concurrent writers (threads and processes), the manifest."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trace_crs.errors import DataError
from trace_crs.lm import records as rec
from trace_crs.lm.records import Records, iter_records
from trace_crs.lm.records_key import STEP_ENV, record_key, step_of
from trace_crs.lm.records_shards import MANIFEST, ShardWriter, read_lines, seal_shard, shard_paths, shard_state

SRC = str(Path(__file__).resolve().parents[2] / "src")
BASE = {
    "model": "openai/m",
    "prompt": None,
    "messages": [{"role": "user", "content": "hi"}],
    "temperature": 0.0,
    "max_tokens": 8,
    "api_key": "sk-1",
    "api_base": "http://127.0.0.1:1/v1",
    "timeout": 5,
}
# by hand: sorted keys, no spaces, without api_key / api_base / timeout
CANONICAL = '{"max_tokens":8,"messages":[{"content":"hi","role":"user"}],"model":"openai/m","prompt":null,"temperature":0.0}'


def test_the_key_is_the_sha256_of_the_canonical_request():
    assert record_key(BASE) == hashlib.sha256(CANONICAL.encode()).hexdigest()
    assert record_key(BASE) == "534b6d0f372b575bc2057331c620bb8811663ba26b5d82eca2655c60f425701a"
    assert record_key(dict(reversed(list(BASE.items())))) == record_key(BASE)       # key order


@pytest.mark.parametrize("change, same", [
    ({"api_base": "http://127.0.0.1:2/v1"}, True),       # where it is sent
    ({"api_key": "sk-2"}, True),                         # with which key
    ({"timeout": 300}, True),                            # how long to wait
    ({"cache": False}, True),
    ({"model": "openai/m-sha256-ab"}, False),            # other weights
    ({"model": "openai/m+avx512f"}, False),              # other llama.cpp build
    ({"messages": [{"role": "user", "content": "hi [v2]"}]}, False),   # prompt version
    ({"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]}, False),
    ({"temperature": 0.7}, False),
    ({"max_tokens": 9}, False),
    ({"seed": 42}, False),
    ({"stop": ["[[ ## completed ## ]]"]}, False),
    ({"extra_body": {"max_tokens": 8, "trace_repeat_ngram": 24}}, False),
    ({"logprobs": True, "top_logprobs": 20}, False),
    ({"rollout_id": 1}, False),
])
def test_what_changes_a_key(change, same):
    assert (record_key({**BASE, **change}) == record_key(BASE)) is same


@pytest.mark.parametrize("content, env, step", [
    ("[zero-shot v1] You are a tourism assistant", None, "zero-shot v1"),
    ("justification per factor (at most 60 words each). [core-v2]", None, "core-v2"),
    ("Your output fields are:\n1. `verdict` (str)\n2. `why` (str)\nDoes the review support it? [v1]", None,
     "verdict+why v1"),
    ("Decide whether this place fits everything the traveler has asked for so far", None,
     "untagged: Decide whether this place fits everything the"),
    ("", None, "unknown"),
    ("[zero-shot v1]", "judge-live", "judge-live"),
])
def test_step_is_the_environment_or_the_prompt_tag(monkeypatch, content, env, step):
    monkeypatch.delenv(STEP_ENV, raising=False)
    if env:
        monkeypatch.setenv(STEP_ENV, env)
    assert step_of([{"role": "system", "content": content}]) == step


def _noise(i: int, n: int) -> str:
    """``n`` hex digits that gzip cannot shrink much (a record's size on disk without luck)."""
    return "".join(hashlib.sha256(f"{i}-{j}".encode()).hexdigest() for j in range(n // 64 + 1))[:n]


def _line(i: int, pad: int = 0) -> str:
    return json.dumps({"key": f"k{i:04d}", "response": {"type": "dict", "body": {"i": i}},
                       "usage": {}, "model": "m", "step": "s", "pad": _noise(i, pad)})


def test_a_shard_cut_by_a_kill_loses_at_most_its_last_record(tmp_path):
    writer = ShardWriter(tmp_path)
    for i in range(3):
        writer.append(_line(i), "s", "m")
    path = writer.path
    assert shard_state(path) == "writing"                 # no end yet, its writer (this process) alive
    whole = path.stat().st_size          # three records flushed, no gzip trailer yet (a kill here)
    writer.append(_line(3, pad=5000), "s", "m")
    cut = whole + (path.stat().st_size - whole) // 2
    data = path.read_bytes()
    assert [json.loads(x)["key"] for x in read_lines(path)] == ["k0000", "k0001", "k0002", "k0003"]
    path.write_bytes(data[:cut])         # the fourth record cut in the middle
    assert [json.loads(x)["key"] for x in read_lines(path)] == ["k0000", "k0001", "k0002"]
    path.write_bytes(data[:whole])       # cut just after the third
    assert len(list(read_lines(path))) == 3
    path.write_bytes(data[:cut] + b"\x00garbage")
    assert len(list(read_lines(path))) == 3
    path.write_bytes(b"")
    assert list(read_lines(path)) == []


def test_a_closed_shard_is_plain_gzip_and_rotation_keeps_shards_small(tmp_path):
    writer = ShardWriter(tmp_path, rotate_bytes=3000)
    for i in range(40):
        writer.append(_line(i, pad=400 + 37 * i), "s", "m")
    writer.close()
    shards = shard_paths(tmp_path)
    assert len(shards) > 1
    assert all(p.stat().st_size < 3000 + 2000 for p in shards)   # rotated at 3000 bytes, + one record
    keys = [json.loads(x)["key"] for p in shards for x in gzip.decompress(p.read_bytes()).splitlines()]
    assert keys == [f"k{i:04d}" for i in range(40)] and {shard_state(p) for p in shards} == {"closed"}
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["records"] == 40 and manifest["counts"] == {"s": {"m": 40}}
    assert sorted(manifest["shards"]) == [p.name for p in shards]


def test_threads_of_one_process_share_one_shard_without_interleaving(tmp_path):
    store = Records(tmp_path)

    def work(t: int) -> None:
        for i in range(50):
            store.append({"key": f"t{t}-{i}", "step": "s", "model": "m", "usage": {},
                          "response": {"type": "dict", "body": {"text": "y" * (i * 13)}}})

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    store.close()
    keys = [r["key"] for r in iter_records(tmp_path)]
    assert len(shard_paths(tmp_path)) == 1 and sorted(keys) == sorted(f"t{t}-{i}" for t in range(8) for i in range(50))
    assert len(Records(tmp_path)) == 400


WRITER = """
import sys, time
from trace_crs.lm.records import Records
store = Records(sys.argv[1])
for i in range(int(sys.argv[3])):
    store.append({"key": f"{sys.argv[2]}-{i}", "step": "s", "model": sys.argv[2], "usage": {},
                  "response": {"type": "dict", "body": {"i": i}}})
    print(i, flush=True)
    time.sleep(float(sys.argv[4]))
store.close()
"""


def _writer(tmp_path: Path, name: str, n: int, pause: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, str(n), str(pause)],
                            stdout=subprocess.PIPE, text=True, env=env)


def test_two_processes_write_their_own_shards(tmp_path):
    procs = [_writer(tmp_path, name, 60, 0.0) for name in ("a", "b")]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    shards = shard_paths(tmp_path)
    assert len(shards) == 2
    per_shard = [{json.loads(x)["model"] for x in read_lines(p)} for p in shards]
    assert sorted(map(sorted, per_shard)) == [["a"], ["b"]]
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["records"] == 120 and manifest["models"] == {"a": 60, "b": 60}


def test_a_writer_killed_with_9_leaves_every_record_it_finished(tmp_path):
    proc = _writer(tmp_path, "k", 100000, 0.002)
    assert proc.stdout is not None
    for _ in range(30):                     # at least 30 records written
        proc.stdout.readline()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    keys = [r["key"] for r in iter_records(tmp_path)]
    assert len(keys) >= 30 and keys == [f"k-{i}" for i in range(len(keys))]
    assert [shard_state(p) for p in shard_paths(tmp_path)] == ["cut"]
    from trace_crs.lm.records_stats import rebuild_manifest

    manifest = rebuild_manifest(tmp_path)               # the writer's entry lagged; the shard counts
    assert manifest["records"] == len(keys) and manifest["counts"] == {"s": {"k": len(keys)}}


def test_sealing_a_cut_shard_keeps_its_whole_records_and_makes_it_plain_gzip(tmp_path):
    writer = ShardWriter(tmp_path)
    for i in range(3):
        writer.append(_line(i), "s", "m")
    path, whole = writer.path, writer.path.stat().st_size
    writer.append(_line(3, pad=5000), "s", "m")
    path.write_bytes(path.read_bytes()[: whole + 40])           # killed in the middle of the fourth record
    closed = ShardWriter(tmp_path)
    closed.append(_line(9), "s", "m")
    closed.close()
    before = {p.name: p.read_bytes() for p in shard_paths(tmp_path)}
    with pytest.raises(EOFError):                                # no gzip trailer: gzip -t fails on it
        gzip.decompress(path.read_bytes())
    assert seal_shard(closed.path) is False                      # a closed shard is left as it is
    assert shard_state(path) == "writing" and seal_shard(path) is False   # its writer (this pid) is alive
    os.rename(path, path := path.with_name(path.name.replace(f"-{os.getpid()}-", "-999999999-")))
    assert shard_state(path) == "cut" and seal_shard(path) is True
    assert [json.loads(x)["key"] for x in gzip.decompress(path.read_bytes()).splitlines()] == ["k0000", "k0001", "k0002"]
    assert shard_state(path) == "closed" and seal_shard(path) is False
    assert closed.path.read_bytes() == before[closed.path.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, closed.path.name, MANIFEST])


def test_a_complete_line_that_is_not_a_record_is_a_data_error(tmp_path):
    (tmp_path / "20260101T000000.000000Z-1-0001-aaaaaa.jsonl.gz").write_bytes(gzip.compress(b'{"key": "a"}\n'))
    with pytest.raises(DataError, match="aaaaaa.jsonl.gz:1: not an LM record"):
        list(iter_records(tmp_path))


def test_the_oldest_record_of_a_key_is_the_one_replayed(tmp_path):
    for name, text in (("20260102", "newer"), ("20260101", "older")):
        line = json.dumps({"key": "k", "usage": {}, "model": "m", "response": {"type": "dict", "body": {"t": text}}})
        (tmp_path / f"{name}T000000.000000Z-1-0001-aaaaaa.jsonl.gz").write_bytes(gzip.compress(line.encode() + b"\n"))
    assert Records(tmp_path).get("k")["response"]["body"] == {"t": "older"}


def test_records_are_off_unless_the_environment_names_a_directory(monkeypatch, tmp_path):
    for value in ("", "off", "OFF"):
        monkeypatch.setenv(rec.ENV, value)
        assert rec.active_records() is None
    monkeypatch.setenv(rec.ENV, str(tmp_path))
    assert rec.records_dir() == tmp_path.resolve() and rec.active_records() is rec.active_records()
    with rec.use_records(None):
        assert rec.active_records() is None
    assert not any(tmp_path.iterdir())


def test_a_store_counts_what_it_replayed_and_missed(tmp_path):
    store = Records(tmp_path)
    store.append({"key": "a", "step": "s", "model": "m", "usage": {}, "response": {"type": "dict", "body": {}}})
    assert store.get("a") is not None and store.get("b") is None and store.get("a") is not None
    assert (store.replayed, store.missed) == (2, 1)
