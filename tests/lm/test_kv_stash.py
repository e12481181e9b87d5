"""The worker's KV stash (lm.kv_stash): a prompt family that returns after another family used the
server is restored from host memory instead of read again, and every answer equals a freshly
started server's (the LM records are keyed by the request alone)."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from trace_crs.lm.ranking import TOP_K, fits_messages
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")
QWEN = Path("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")

SYSTEM = ("You recommend places to travellers. Quote reviews verbatim with their labels, rank the "
          "places that fit, and decline when none does. ") * 4
TURNS = [f"user: turn {i}: a quiet place with a terrace near the river, vegetarian dishes, not too dear"
         for i in range(8)]


def _post(base: str, body: dict) -> dict:
    req = urllib.request.Request(f"{base}/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


def _reply(conv: str) -> dict:
    return {"model": "m", "messages": [{"role": "system", "content": SYSTEM},
                                       {"role": "user", "content": f"Conversation:\n{conv}\n\nAnswer in one line."}],
            "max_tokens": 12, "temperature": 0.0, "seed": 42}


def _fit(conv: str, card: str) -> dict:
    return {"model": "m", "messages": fits_messages(conv, card), "logprobs": True, "top_logprobs": TOP_K,
            "max_tokens": 1, "temperature": 0.0, "seed": 42}


@pytest.mark.parametrize("model", [SMOKE, QWEN], ids=["smollm2-135m", "qwen2.5-0.5b"])
def test_a_returning_prompt_is_restored_and_answered_as_a_fresh_server_does(model):
    if not model.exists():
        pytest.skip(f"{model} absent (make models)")
    one, two = "\n".join(TURNS[:5]), "\n".join(TURNS)
    bodies = [_reply(one), _fit(one, "[p1] Lotus: thai, price $."), _fit(one, "[p2] Roma: italian, price $$."),
              _reply(two), _fit(two, "[p1] Lotus: thai, price $.")]
    with LlamaServer(model, "m", 2048, 1) as warm:
        got = [_post(warm.api_base, b) for b in bodies]
    restored = [g["timings"]["prompt_restored_n"] for g in got]
    # the second reply restores the first reply's prompt, the last fit question the fit questions' prompt
    assert restored[:3] == [0, 0, 0] and restored[3] > 0 and restored[4] > 0
    for g in got[3:]:
        assert g["timings"]["prompt_n"] < g["usage"]["prompt_tokens"] - g["timings"]["prompt_restored_n"] // 2
    for body, have in zip(bodies[3:], got[3:], strict=True):  # the restored ones (the others: test_llama_worker)
        with LlamaServer(model, "m", 2048, 1) as fresh:
            want = _post(fresh.api_base, body)
        assert have["choices"][0]["message"] == want["choices"][0]["message"]
        assert have["choices"][0].get("logprobs") == want["choices"][0].get("logprobs")


def test_without_a_stash_the_same_requests_restore_nothing():
    if not SMOKE.exists():
        pytest.skip(f"{SMOKE} absent (make models-smoke)")
    from argparse import Namespace

    from trace_crs.lm.llama_worker import Worker, load

    llama = load(Namespace(model=str(SMOKE), model_alias="m", n_ctx=2048, n_threads=1, n_threads_batch=1,
                           n_gpu_layers=0, verbose=False))
    one, two = "\n".join(TURNS[:5]), "\n".join(TURNS)
    worker = Worker(llama, "m", stash=0)
    got = [worker.chat(b) for b in (_reply(one), _fit(one, "[p1] Lotus: thai, price $."), _reply(two))]
    assert [g["timings"]["prompt_restored_n"] for g in got] == [0, 0, 0]
    # the fit question shares only the chat template's first tokens with the reply: all is read again
    assert got[2]["timings"]["prompt_n"] > got[2]["usage"]["prompt_tokens"] - 16
