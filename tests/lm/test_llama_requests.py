"""One request on a loaded model (``lm.llama_requests``): the one-token log-prob answer laid out
as ``Llama._create_completion`` lays it out (hand-worked logits over a 5-token vocabulary), and
the refusal of log-prob requests it cannot answer from one row of logits."""
from __future__ import annotations

import numpy as np
import pytest

from trace_crs.lm import llama_requests


class _Vocab:
    """A stand-in Llama over a 5-token vocabulary (tokens are their own text)."""

    model_path = "m.gguf"
    _model = type("M", (), {"vocab": None})()

    def detokenize(self, tokens, prev_tokens=None):
        return "".join(["yes", " yes", "no", "Yes", "<eos>"][t] for t in tokens).encode()


def test_top_list_is_ordered_and_keyed_as_the_library_does(monkeypatch):
    # logits 2, 2, 1, 0, -inf: ties keep the larger token id first (sorted((value, id), reverse=True))
    logits = np.array([2.0, 2.0, 1.0, 0.0, -np.inf], dtype=np.single)
    monkeypatch.setattr(llama_requests, "last_logits", lambda llama, prompt: logits)
    monkeypatch.setattr("llama_cpp.llama_cpp.llama_vocab_is_eog", lambda vocab, tok: tok == 4)
    out = llama_requests.one_token_logprobs(_Vocab(), [7, 8, 9], 2, ["<eos>"], "m")
    lp = out["choices"][0]["logprobs"]
    norm = np.log(2 * np.e ** 2 + np.e + 1)
    assert lp["tokens"] == ["yes"] and lp["text_offset"] == [3]        # argmax: the first maximum
    assert list(lp["top_logprobs"][0]) == [" yes", "yes"]               # id 1 before id 0
    assert lp["top_logprobs"][0]["yes"] == pytest.approx(2 - norm, abs=1e-6)
    assert out["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    assert out["choices"][0]["text"] == "yes" and out["choices"][0]["finish_reason"] == "length"


def test_end_of_generation_token_gives_an_empty_answer_as_the_library(monkeypatch):
    monkeypatch.setattr(llama_requests, "last_logits", lambda llama, prompt: np.array([0, 0, 0, 0, 5.0], np.single))
    monkeypatch.setattr("llama_cpp.llama_cpp.llama_vocab_is_eog", lambda vocab, tok: tok == 4)
    out = llama_requests.one_token_logprobs(_Vocab(), [1], 3, [], None)
    assert out["choices"][0]["text"] == "" and out["choices"][0]["finish_reason"] == "stop"
    assert out["choices"][0]["logprobs"]["tokens"] == [] and out["usage"]["completion_tokens"] == 0
    assert out["model"] == "m.gguf"


def test_logprobs_only_for_one_greedy_token():
    fast = llama_requests.FastLogprobs(object())
    with pytest.raises(ValueError, match="1-token greedy"):
        fast.create_completion([1, 2], logprobs=5, max_tokens=3, temperature=0.0)
    with pytest.raises(ValueError, match="1-token greedy"):
        fast.create_completion([1, 2], logprobs=5, max_tokens=1, temperature=0.7)


@pytest.mark.parametrize("value", [-1, 1.5, "3", True])
def test_repeat_field_must_be_a_non_negative_integer(value):
    pytest.importorskip("llama_cpp.server")
    with pytest.raises(ValueError, match=llama_requests.REPEAT_KEY):
        llama_requests.parse_chat_request({"messages": [], llama_requests.REPEAT_KEY: value})


def test_request_parsed_with_the_library_defaults_and_dumped_as_its_app_does():
    pytest.importorskip("llama_cpp.server")
    req, n = llama_requests.parse_chat_request({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5,
                                                llama_requests.REPEAT_KEY: 4, "user": "u", "n": 1})
    kw = llama_requests.completion_kwargs(req)
    assert n == 4 and kw["max_tokens"] == 5 and kw["messages"] == [{"role": "user", "content": "hi"}]
    assert not {"n", "user", "logit_bias_type", "min_tokens", llama_requests.REPEAT_KEY} & set(kw)
    assert llama_requests.parse_chat_request({"messages": []})[1] == 0          # guard off by default
    with pytest.raises(ValueError, match="streaming"):
        llama_requests.parse_chat_request({"messages": [], "stream": True})


class _Cache:
    """A stand-in Llama whose KV cache holds ``cached`` tokens, the first ``prompt_rows`` read as a prompt."""

    def __init__(self, cached: list[int], prompt_rows: int) -> None:
        self._input_ids, self.n_tokens = cached, len(cached)
        setattr(self, llama_requests.PROMPT_ROWS, prompt_rows)


@pytest.mark.parametrize(
    ("cached", "prompt_rows", "tokens", "kept"),
    [
        (list(range(40)), 40, list(range(37)) + [99] * 10, 32),  # common 37 → the block below: 32
        (list(range(40)), 20, list(range(40)) + [99] * 10, 16),  # rows 20..39 were decoded: 20 → 16
        (list(range(40)), 40, list(range(40)), 32),  # the whole prompt cached: 39 (fresh logits) → 32
        (list(range(40)), 40, list(range(15)) + [99] * 30, 0),  # less than one block in common
        ([], 0, list(range(40)), 0),  # empty cache
    ],
)
def test_reusable_prefix_keeps_whole_blocks_of_prompt_rows(cached, prompt_rows, tokens, kept):
    assert llama_requests.REUSE_BLOCK == 16  # the cases above are worked for 16
    assert llama_requests.reusable_prefix(_Cache(cached, prompt_rows), tokens) == kept
