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
        (list(range(40)), 40, list(range(37)) + [99] * 10, 16),  # common 37, 47 - 16 = 31 to keep → 16
        (list(range(40)), 40, list(range(37)) + [99] * 30, 32),  # common 37, 67 - 16 = 51 → 32
        (list(range(40)), 20, list(range(40)) + [99] * 30, 16),  # rows 20..39 were decoded: 20 → 16
        (list(range(40)), 40, list(range(40)), 16),  # the whole prompt cached: one block left to read → 16
        (list(range(40)), 40, list(range(15)) + [99] * 30, 0),  # less than one block in common
        ([], 0, list(range(40)), 0),  # empty cache
    ],
)
def test_reusable_prefix_keeps_whole_blocks_of_prompt_rows_and_reads_one(cached, prompt_rows, tokens, kept):
    assert llama_requests.REUSE_BLOCK == 16  # the cases above are worked for 16 (no measured block)
    assert llama_requests.reusable_prefix(_Cache(cached, prompt_rows), tokens) == kept


def test_a_measured_block_replaces_the_default_and_zero_reuses_nothing():
    cache = _Cache(list(range(40)), 40)
    setattr(cache, llama_requests.KV_BLOCK, 8)
    assert llama_requests.reusable_prefix(cache, list(range(37)) + [99] * 10) == 32   # min(37, 47 - 8) → 32
    setattr(cache, llama_requests.KV_BLOCK, llama_requests.NO_REUSE)
    assert llama_requests.reusable_prefix(cache, list(range(40)) + [99] * 10) == 0


class _Split:
    """A stand-in Llama whose last-row logits depend on how the prompt was read: a part of fewer
    than ``tile`` tokens, or a first part that is not a multiple of ``tile``, changes them (as the
    CPU kernels measured in llama_requests' docstring do)."""

    def __init__(self, tile: int) -> None:
        self.tile, self.parts, self.resets = tile, [], 0
        self._ctx = type("Ctx", (), {"kv_cache_seq_rm": lambda *a: True})()

    def tokenize(self, text, add_bos=False):
        return list(range(len(text.split())))

    def reset(self):
        self.parts, self.resets = [], self.resets + 1

    def eval(self, tokens):
        self.parts.append(len(tokens))

    def last_logits(self):
        odd = len(self.parts) > 1 and (any(n < self.tile for n in self.parts) or self.parts[0] % self.tile)
        return np.array([1.0, 2.0 + (0.5 if odd else 0.0)], np.single)


@pytest.mark.parametrize(("tile", "block"), [(4, 4), (8, 8), (16, 16), (32, llama_requests.NO_REUSE)])
def test_measure_block_finds_the_smallest_safe_block(monkeypatch, tile, block):
    monkeypatch.setattr(llama_requests, "_last_row", lambda llama: llama.last_logits())
    llama = _Split(tile)
    assert llama_requests.measure_block(llama, text=" ".join(["w"] * 60)) == block
    assert getattr(llama, llama_requests.PROMPT_ROWS) == 0 and llama.resets > 0   # the cache is left empty
    with pytest.raises(ValueError, match="needs at least 55 tokens"):
        llama_requests.measure_block(llama, text="too short")
