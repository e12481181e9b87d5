"""`trace-crs human serve` as a process: labels saved before a SIGKILL are all there afterwards."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from trace_crs.human.store import LabelStore, read_items

ITEMS = Path(__file__).resolve().parents[1] / "fixtures" / "human" / "items.jsonl"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_killed_server_loses_nothing(tmp_path):
    db, port = tmp_path / "labels.sqlite", _port()
    proc = subprocess.Popen([sys.executable, "-m", "trace_crs", "human", "serve", "--items", str(ITEMS), "--db", str(db),
                             "--annotators", "A1", "--port", str(port)], stdout=subprocess.PIPE, text=True,
                            env=os.environ | {"PYTHONUNBUFFERED": "1"})
    try:
        link = proc.stdout.readline().split(": ", 1)[1].strip()
        assert link.startswith(f"http://127.0.0.1:{port}/a/")
        token = link.rsplit("/", 1)[1]
        for _ in range(200):
            try:
                httpx.get(link, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        sent = {"quote.0": "supported", "errors": ["too_vague"], "informativeness": 2, "naturalness": 3,
                "comment": "before the kill"}
        for field, value in sent.items():
            r = httpx.put(f"http://127.0.0.1:{port}/api/{token}/item/t1-000/{field}", json={"value": value}, timeout=10)
            assert r.status_code == 200, r.text
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert LabelStore(db, read_items(ITEMS)).fields("A1") == {"t1-000": sent}
