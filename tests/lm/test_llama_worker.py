"""Trace's llama.cpp worker answers exactly as ``llama_cpp.server`` with ``logits_all`` does: the
same requests to both (SmolLM2-135M) give the same messages, logprobs and usage; and its answer to
a request does not depend on the request before it (the same as on a freshly started server)."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from trace_crs.lm.ranking import TOP_K, fits_messages
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")
QWEN = Path("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")  # its CPU kernels take rows 4 at a time


def _post(base: str, body: dict) -> dict:
    req = urllib.request.Request(f"{base}/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


def _requests() -> list[dict]:
    conv = ("user: A quiet vegetarian place near the old town, please.\n"
            "assistant: Try Green Table [R1] \"lovely salads\".\nuser: Not that one, something cheaper.")
    cards = [f"[p{i}] {name}: {cuisine}, price {'$' * (1 + i % 3)}. Reviews: [R1] \"{quote}\""
             for i, (name, cuisine, quote) in enumerate([("Lotus", "thai", "fresh and cheap"),
                                                         ("Roma", "italian", "loud but tasty"),
                                                         ("Leaf", "vegan", "quiet, small portions")])]
    # the second conversation extends the first: the worker must reuse and then cut the KV prefix
    bodies = [{"model": "m", "messages": fits_messages(c, card), "logprobs": True, "top_logprobs": TOP_K,
               "max_tokens": 1, "temperature": 0.0, "seed": 42}
              for c in (conv, conv + "\nuser: And open late.", conv) for card in cards]
    bodies.append({"model": "m", "messages": [{"role": "user", "content": "Name one museum in Paris."}],
                   "max_tokens": 24, "temperature": 0.0, "seed": 42})
    return bodies


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_worker_answers_as_the_library_server_with_logits_all():
    pytest.importorskip("llama_cpp.server")
    bodies = _requests()
    with LlamaServer(SMOKE, "m", 2048, 1, program="llama_cpp") as lib:
        expected = [_post(lib.api_base, b) for b in bodies]
    with LlamaServer(SMOKE, "m", 2048, 1) as worker:
        got = [_post(worker.api_base, b) for b in bodies]
    for want, have in zip(expected, got, strict=True):
        assert have["choices"][0]["message"] == want["choices"][0]["message"]
        assert have["choices"][0]["logprobs"] == want["choices"][0]["logprobs"]
        assert have["choices"][0]["finish_reason"] == want["choices"][0]["finish_reason"]
        assert have["usage"] == want["usage"]
    assert len(got[0]["choices"][0]["logprobs"]["content"][0]["top_logprobs"]) == TOP_K


def test_server_programs():
    trace = LlamaServer.__new__(LlamaServer)
    trace.model_path, trace.alias, trace.n_ctx, trace.n_threads, trace.program = Path("m.gguf"), "a", 512, 1, "trace"
    assert "trace_crs.lm.llama_worker" in trace.command(1) and "--logits_all" not in trace.command(1)
    trace.program = "llama_cpp"
    line = " ".join(trace.command(1))
    assert "-m llama_cpp.server" in line and "--logits_all true" in line


def _after_a_reply(reply: str) -> dict:
    """A 1-token log-prob question whose prompt repeats the model's own earlier reply."""
    messages = [{"role": "user", "content": "Name three quiet museums in Lisbon and say why."},
                {"role": "assistant", "content": reply},
                {"role": "user", "content": "Is the first one free to enter? Answer yes or no."}]
    return {"model": "m", "messages": messages, "logprobs": True, "top_logprobs": TOP_K, "max_tokens": 1,
            "temperature": 0.0, "seed": 42}


@pytest.mark.parametrize("model", [SMOKE, QWEN], ids=["smollm2-135m", "qwen2.5-0.5b"])
def test_answer_does_not_depend_on_the_request_before_it(model):
    """On one server, each request follows another that shares part of its prompt: an earlier
    reply decoded token by token, or a conversation cut at a point no kernel block lines up with.
    Each answer must equal the one a freshly started server gives (the LM records are keyed by the
    request alone).  Without ``reusable_prefix`` the 135M model fails on the first kind and the
    0.5B model on both."""
    if not model.exists():
        pytest.skip(f"{model} absent (make models)")
    first = {"model": "m", "messages": [{"role": "user", "content": "Name three quiet museums in Lisbon and say why."}],
             "max_tokens": 24, "temperature": 0.0, "seed": 42}
    conv = "\n".join(f"user: turn {i}: somewhere quiet with a terrace near the river, not too dear" for i in range(9))
    with LlamaServer(model, "m", 2048, 1) as warm:
        reply = _post(warm.api_base, first)["choices"][0]["message"]["content"]
        bodies = [_after_a_reply(reply)] + [
            {"model": "m", "messages": fits_messages(c, card), "logprobs": True, "top_logprobs": TOP_K,
             "max_tokens": 1, "temperature": 0.0, "seed": 42}
            for c, card in ((conv, "[p1] Lotus: thai, price $."), (conv + " at all", "[p2] Roma: italian, price $$."))]
        after = [_post(warm.api_base, b) for b in bodies]
    for body, got in zip(bodies, after, strict=True):
        with LlamaServer(model, "m", 2048, 1) as fresh:
            want = _post(fresh.api_base, body)
        assert got["choices"][0]["logprobs"] == want["choices"][0]["logprobs"]
        assert got["choices"][0]["message"] == want["choices"][0]["message"]


@pytest.mark.parametrize("model", [SMOKE, QWEN], ids=["smollm2-135m", "qwen2.5-0.5b"])
def test_every_split_the_measured_block_allows_gives_the_logits_of_one_read(model):
    """The rule the worker's KV reuse keeps (llama_requests.reusable_prefix): a prompt read in two
    parts, split at a multiple of the block this machine measured with both parts at least one block
    long, gives the last-row logits of the prompt read at once — on prompts and splits other than
    the ones measure_block tries."""
    if not model.exists():
        pytest.skip(f"{model} absent (make models)")
    import numpy as np
    from llama_cpp import Llama

    from trace_crs.lm.llama_requests import PROBE_TEXT, _logits_in_parts, measure_block

    llama = Llama(str(model), n_ctx=1024, n_threads=1, n_threads_batch=1, verbose=False)
    block = measure_block(llama)
    assert block > 0
    tokens = llama.tokenize(("Trip notes. " + PROBE_TEXT[::-1] + " " + PROBE_TEXT).encode(), add_bos=False)
    for n in (4 * block + 1, 5 * block + 6, 7 * block + 3):
        whole = _logits_in_parts(llama, tokens[:n], 0)
        for split in range(block, n - block + 1, block):
            assert np.array_equal(_logits_in_parts(llama, tokens[:n], split), whole), (n, split, block)
