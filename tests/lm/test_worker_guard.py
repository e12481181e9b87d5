"""The worker's repetition guard on a real model (SmolLM2-135M, greedy): it only ends a reply
early — the guarded reply is a prefix of the unguarded one — and stops a looping reply well
before max_tokens.  The end-marker stop cuts the reply before DSPy's "[[ ## completed ## ]]"."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from trace_crs.lm.backend import END_MARKER
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")
LOOP = [{"role": "user", "content": "List every hotel in Paris with its address."}]   # " Rue de la Riv..." loops
MARKED = [{"role": "user", "content": f"Copy this text exactly: 'The rating is 3. {END_MARKER} Then more text.'"}]


def _post(base: str, body: dict) -> dict:
    req = urllib.request.Request(f"{base}/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_repeat_guard_ends_a_loop_early_and_never_changes_the_tokens():
    pytest.importorskip("llama_cpp")
    base = {"model": "m", "max_tokens": 256, "temperature": 0.0, "seed": 42}
    with LlamaServer(SMOKE, "m", 2048, 1) as worker:
        # a warm-up puts every compared request after the same one (its reply must not depend on it:
        # test_llama_worker.py)
        _post(worker.api_base, {**base, "messages": LOOP})
        free = _post(worker.api_base, {**base, "messages": LOOP})
        guarded = _post(worker.api_base, {**base, "messages": LOOP, "trace_repeat_ngram": 4})
        again = _post(worker.api_base, {**base, "messages": LOOP, "trace_repeat_ngram": 4})
        marked = _post(worker.api_base, {**base, "messages": MARKED, "stop": [END_MARKER]})
    text_free, text_guarded = (r["choices"][0]["message"]["content"] for r in (free, guarded))
    assert free["choices"][0]["finish_reason"] == "length"        # the model loops to max_tokens
    assert guarded["choices"][0]["finish_reason"] == "stop"
    assert guarded["usage"]["completion_tokens"] < free["usage"]["completion_tokens"] // 2
    assert text_free.startswith(text_guarded) and text_guarded       # same greedy tokens, cut earlier
    assert again["choices"][0]["message"] == guarded["choices"][0]["message"]   # deterministic
    assert END_MARKER not in marked["choices"][0]["message"]["content"]
    # llama.cpp's timings: after the warm-up the prompt is reused from the KV cache in whole blocks
    # of the block the worker measured (llama_requests.reusable_prefix), at least one block short of it
    n, block = free["usage"]["prompt_tokens"], free["timings"]["kv_reuse_block"]
    assert block in (4, 8, 16) and free["timings"]["prompt_n"] == n - (n - block) // block * block
    assert abs(free["timings"]["predicted_n"] - free["usage"]["completion_tokens"]) <= 1
