"""Local-model decoding guards (README "Local model settings"): the end-marker stop, the worker's
n-gram repetition stop, and the count of replies cut at max_tokens in nested usage blocks."""
from __future__ import annotations

import dspy
import pytest

from trace_crs.lm.backend import END_MARKER, build_lm, local_decoding
from trace_crs.lm.config import LMConfig, resolve_lm_config
from trace_crs.lm.fake_server import FakeConfig, serve
from trace_crs.lm.llama_requests import RepeatStop
from trace_crs.lm.usage import recording_usage, was_truncated


def _run(stop: RepeatStop, tokens: list[int]) -> list[bool]:
    """The criterion as llama.cpp calls it: once per token, with every id evaluated so far."""
    return [stop(tokens[:k]) for k in range(1, len(tokens) + 1)]


@pytest.mark.parametrize("prompt,generated,n,first_true", [
    ([9, 9, 9], [1, 2, 1, 2, 1, 2], 2, 6),          # (1,2) at generated ends 2, 4, 6: third occurrence
    ([9, 9, 9], [5, 5, 5, 5], 1, 3),                # unigram 5 the third time
    ([9, 9, 9], [1, 2, 3, 4, 5, 6, 7], 2, None),    # no repetition: never stops
    ([1, 2, 1, 2], [1, 2, 7], 2, None),             # the prompt's repeats do not count
    ([], [], 3, None),                              # empty
])
def test_repeat_stop_hand_worked(prompt, generated, n, first_true):
    got = _run(RepeatStop(len(prompt), n), prompt + generated)[len(prompt):]
    expected = [first_true is not None and i + 1 >= first_true for i in range(len(generated))]
    assert got[: (first_true or len(got))] == expected[: (first_true or len(got))]
    assert (True in got) == (first_true is not None)
    if first_true is not None:
        assert got.index(True) + 1 == first_true


def test_repeat_stop_stays_stopped_when_asked_again_with_the_same_ids():
    stop = RepeatStop(0, 1)
    assert _run(stop, [4, 4, 4]) == [False, False, True] and stop([4, 4, 4])   # llama.cpp re-asks after a stop


def test_repeat_stop_rejects_bad_settings():
    with pytest.raises(ValueError, match="n must be"):
        RepeatStop(0, 0)


def test_local_decoding_adds_the_end_marker_once_and_the_guard_for_the_trace_worker_only():
    got = local_decoding(LMConfig(), 600, {}, None)
    assert got == {"extra_body": {"max_tokens": 600, "trace_repeat_ngram": 24}, "stop": [END_MARKER]}
    assert local_decoding(LMConfig(), 50, {"a": 1}, ["\n\n", END_MARKER])["stop"] == ["\n\n", END_MARKER]
    assert "trace_repeat_ngram" not in local_decoding(LMConfig(server="llama_cpp"), 600, {}, "x")["extra_body"]
    assert "trace_repeat_ngram" not in local_decoding(LMConfig(repeat_ngram=0), 600, {}, None)["extra_body"]
    with pytest.raises(ValueError, match="repeat_ngram"):
        LMConfig(repeat_ngram=-1)


def test_api_models_get_no_local_guard_and_truncation_counts_in_nested_blocks(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-not-a-key")
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    seen = []
    with serve(FakeConfig(schedule=("ok", "length")), reply=lambda m: seen.append(m) or "abcdefgh") as server:
        lm = build_lm(resolve_lm_config({"model": "openai/fake", "api_base": server.api_base}))
        sent = []
        forward = lm.forward
        lm.forward = lambda prompt=None, messages=None, **kw: sent.append(kw) or forward(prompt, messages, **kw)
        with recording_usage() as outer:
            lm(messages=[{"role": "user", "content": "one"}])
            with recording_usage() as inner:
                out = lm(messages=[{"role": "user", "content": "two"}])
    assert out == ["abcd"] and all("stop" not in kw and "extra_body" not in kw for kw in sent)
    assert (outer.calls, outer.truncated, inner.calls, inner.truncated) == (2, 1, 1, 1)


def test_was_truncated_reads_the_first_choice():
    assert was_truncated({"choices": [{"finish_reason": "length"}]})
    assert not was_truncated({"choices": [{"finish_reason": "stop"}]}) and not was_truncated({}) \
        and not was_truncated(None)
