"""Trace's llama.cpp worker answers exactly as ``llama_cpp.server`` with ``logits_all`` does: the
same requests to both (SmolLM2-135M) give the same messages, logprobs and usage."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from trace_crs.lm import llama_worker
from trace_crs.lm.ranking import TOP_K, fits_messages
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")


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
    for want, have in zip(expected, got):
        assert have["choices"][0]["message"] == want["choices"][0]["message"]
        assert have["choices"][0]["logprobs"] == want["choices"][0]["logprobs"]
        assert have["choices"][0]["finish_reason"] == want["choices"][0]["finish_reason"]
        assert have["usage"] == want["usage"]
    assert len(got[0]["choices"][0]["logprobs"]["content"][0]["top_logprobs"]) == TOP_K


class _Vocab:
    """A stand-in Llama over a 5-token vocabulary (tokens are their own text)."""

    model_path = "m.gguf"
    _model = type("M", (), {"vocab": None})()

    def detokenize(self, tokens, prev_tokens=None):
        return "".join(["yes", " yes", "no", "Yes", "<eos>"][t] for t in tokens).encode()


def test_top_list_is_ordered_and_keyed_as_the_library_does(monkeypatch):
    # logits 2, 2, 1, 0, -inf: ties keep the larger token id first (sorted((value, id), reverse=True))
    logits = np.array([2.0, 2.0, 1.0, 0.0, -np.inf], dtype=np.single)
    monkeypatch.setattr(llama_worker, "last_logits", lambda llama, prompt: logits)
    monkeypatch.setattr("llama_cpp.llama_cpp.llama_vocab_is_eog", lambda vocab, tok: tok == 4)
    out = llama_worker.one_token_logprobs(_Vocab(), [7, 8, 9], 2, ["<eos>"], "m")
    lp = out["choices"][0]["logprobs"]
    norm = np.log(2 * np.e ** 2 + np.e + 1)
    assert lp["tokens"] == ["yes"] and lp["text_offset"] == [3]        # argmax: the first maximum
    assert list(lp["top_logprobs"][0]) == [" yes", "yes"]               # id 1 before id 0
    assert lp["top_logprobs"][0]["yes"] == pytest.approx(2 - norm, abs=1e-6)
    assert out["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    assert out["choices"][0]["text"] == "yes" and out["choices"][0]["finish_reason"] == "length"


def test_end_of_generation_token_gives_an_empty_answer_as_the_library(monkeypatch):
    monkeypatch.setattr(llama_worker, "last_logits", lambda llama, prompt: np.array([0, 0, 0, 0, 5.0], np.single))
    monkeypatch.setattr("llama_cpp.llama_cpp.llama_vocab_is_eog", lambda vocab, tok: tok == 4)
    out = llama_worker.one_token_logprobs(_Vocab(), [1], 3, [], None)
    assert out["choices"][0]["text"] == "" and out["choices"][0]["finish_reason"] == "stop"
    assert out["choices"][0]["logprobs"]["tokens"] == [] and out["usage"]["completion_tokens"] == 0
    assert out["model"] == "m.gguf"


def test_server_programs():
    trace = LlamaServer.__new__(LlamaServer)
    trace.model_path, trace.alias, trace.n_ctx, trace.n_threads, trace.program = Path("m.gguf"), "a", 512, 1, "trace"
    assert "trace_crs.lm.llama_worker" in trace.command(1) and "--logits_all" not in trace.command(1)
    trace.program = "llama_cpp"
    line = " ".join(trace.command(1))
    assert "-m llama_cpp.server" in line and "--logits_all true" in line


def test_logprobs_only_for_one_greedy_token():
    fast = llama_worker.FastLogprobs(object())
    with pytest.raises(ValueError, match="1-token greedy"):
        fast.create_completion([1, 2], logprobs=5, max_tokens=3, temperature=0.0)
    with pytest.raises(ValueError, match="1-token greedy"):
        fast.create_completion([1, 2], logprobs=5, max_tokens=1, temperature=0.7)
