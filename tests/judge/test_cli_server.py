"""``trace-crs judge core`` through the real LM backend (DSPy + litellm) against a fake
OpenAI-compatible server on 127.0.0.1: ``--set lm.model=openai/<name> --set lm.api_base=<url>``
works, tokens are counted per transcript, and a rerun replays from the LM cache."""
from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dspy
import pytest

from trace_crs.cli import main

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
FIXTURE = Path(__file__).parent / "fixtures" / "movie_crs.jsonl"


class _Judge(BaseHTTPRequestHandler):
    calls: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Judge.calls.append(body)
        last = body["messages"][-1]["content"]
        if '"dimension_name"' in last:
            content = "[[ ## statement ## ]]\nUsable.\n\n[[ ## score ## ]]\n55\n\n[[ ## completed ## ]]"
        elif 'factor="Novelty"' in last and "Attempt 2" not in last:
            content = "[[ ## rationale ## ]]\nhmm\n\n[[ ## rating ## ]]\nfour\n\n[[ ## completed ## ]]"
        else:
            content = "[[ ## rationale ## ]]\nSound.\n\n[[ ## rating ## ]]\n2\n\n[[ ## completed ## ]]"
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Judge.calls = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)


def test_openai_compatible_endpoint_usage_and_replay(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")                   # the fake server ignores it
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURE), "--out", str(t)])
    argv = ["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "1", "--aggregator", "debate",
            "--set", "lm.model=openai/fake-judge", "--set", f"lm.api_base={server}",
            "--set", f"lm.cache_dir={tmp_path / 'lm'}"]
    assert main(argv) == 0
    [r] = [json.loads(x) for x in o.read_text().splitlines()]
    # 12 factor calls + 1 retry (Novelty's "four") + 4 debaters, unanimous after round 1
    assert len(_Judge.calls) == 17 and r["usage"]["calls"] == 17
    assert (r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"]) == (1700, 119)
    assert r["factors"]["novelty"] == 2 and r["core_avg"] == 2.0 and r["debate"]["score"] == 55.0
    assert r["judge"] == "openai/fake-judge"
    o.unlink()
    assert main(argv) == 0                                                   # replayed from the LM cache
    [again] = [json.loads(x) for x in o.read_text().splitlines()]
    assert len(_Judge.calls) == 17 and again["usage"] == r["usage"]         # replay reports the measured usage
    assert again == r
