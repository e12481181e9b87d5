"""Batched decoding (``--parallel N``, SmolLM2-135M, greedy).

Requests sent one at a time give the same messages, finish reasons, logprobs and usage from the
one-sequence worker and from the batched worker with 1 or 3 slots, in both KV layouts (the
engine's prefix reuse, KV copies between slots, sampling and stop handling are the library's).
Sent concurrently, a reply can differ: llama.cpp's CPU kernels do not give bit-identical logits
for one sequence when the batch holds other sequences too, much more so in the ``shared`` layout
(measured and reported by ``bench/bench_batch_slots.py``, not asserted here)."""
from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from trace_crs.lm.batch_engine import common_prefix
from trace_crs.lm.config import LMConfig
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")


def _post(base: str, body: dict) -> dict:
    req = urllib.request.Request(f"{base}/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


def _bodies() -> list[dict]:
    from tests.lm.test_llama_worker import _requests  # the log-prob ranking calls and one reply

    questions = ["Describe a quiet cafe in two sentences.", "List three things to do in Rome.",
                 "Write a haiku about trains.", "Say 'go' ten times."]
    gen = [{"model": "m", "messages": [{"role": "user", "content": q}], "max_tokens": 32, "temperature": 0.0,
            "seed": 42, "trace_repeat_ngram": 2} for q in questions]
    gen[1]["stop"] = ["3."]  # a stop string ends the reply on the consumer's side
    gen[2].pop("trace_repeat_ngram")
    return [*gen, *_requests()]


def _replies(slots: int, bodies: list[dict], clients: int = 1, kv: str = "private") -> list[tuple]:
    with LlamaServer(SMOKE, "m", 2048, 1, slots=slots, slot_kv=kv) as srv, ThreadPoolExecutor(clients) as pool:
        out = list(pool.map(lambda b: _post(srv.api_base, b), bodies))
    return [(o["choices"][0]["message"], o["choices"][0]["finish_reason"], o["choices"][0].get("logprobs"),
             o["usage"]) for o in out]


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_replies_sent_one_at_a_time_do_not_depend_on_the_slot_count():
    pytest.importorskip("llama_cpp")
    bodies = _bodies()
    one = _replies(0, bodies)
    assert _replies(1, bodies, clients=1) == one
    assert _replies(3, bodies, clients=1) == one
    assert _replies(3, bodies, clients=1, kv="shared") == one
    assert {r[1] for r in one} >= {"stop", "length"}  # the cases above end both ways


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_one_slot_keeps_the_prefix_the_one_sequence_worker_keeps():
    """Prompt tokens read per request (after the kept KV prefix) are the one-sequence worker's, so
    the batched worker reuses only rows read as a prompt, in whole measured blocks, and reads at
    least one block (llama_requests.reusable_prefix)."""
    pytest.importorskip("llama_cpp")
    bodies = _bodies()

    def reads(slots: int) -> list[tuple[int, int]]:
        with LlamaServer(SMOKE, "m", 2048, 1, slots=slots) as srv:
            out = [_post(srv.api_base, b) for b in bodies]
        return [(o["timings"]["prompt_n"], o["usage"]["prompt_tokens"]) for o in out]

    one = reads(0)
    assert reads(1) == one
    assert any(read < total for read, total in one)  # some request kept a prefix


@pytest.mark.parametrize("a, b, n", [([], [1], 0), ([1, 2, 3], [1, 2, 4], 2), ([1, 2], [1, 2, 3], 2),
                                     ([5], [6], 0), ([1, 2, 3], [1, 2, 3], 3)])
def test_common_prefix(a, b, n):
    assert common_prefix(a, b) == n


def test_slot_kv_layout_is_checked():
    with pytest.raises(ValueError, match="slot_kv"):
        LMConfig(slot_kv="unified")
    assert LMConfig().slot_kv == "private"


def test_slots_need_the_trace_worker():
    with pytest.raises(ValueError, match="Trace worker"):
        LlamaServer(__file__, "a", slots=2, program="llama_cpp")
    srv = LlamaServer(__file__, "a", slots=2)
    assert srv.command(1)[-6:-2] == ["--parallel", "2", "--slot_kv", "private"]
    assert LlamaServer(__file__, "a", slots=2, slot_kv="shared").command(1)[-4:-2] == ["--slot_kv", "shared"]
    assert "--parallel" not in LlamaServer(__file__, "a").command(1)
