"""Prompt-lookup drafts on the local worker (lm.prompt_lookup, README "Local model settings").

What is tested (SmolLM2-135M, several greedy requests on one model, so the KV prefix reuse
between requests is exercised too): the worker's drafted path samples exactly what
llama-cpp-python's own ``Llama(draft_model=LlamaPromptLookupDecoding(...))`` samples (it only
skips the prompt's ``logits_all``); the drafts are really verified (fewer forward passes than
decoded tokens on replies that copy their prompt); the log-prob path is unchanged; and the
setting is a server setting that never changes a request or its LM cache key.

What is *not* true, and documented here instead: the drafted replies are not always the
token-by-token replies.  llama.cpp's CPU kernels round a verification batch of several positions
differently from a single position, so a near-tie can flip a greedy token; with this model and
these requests some replies differ (the library's own speculative path differs in the same way).
That is why ``lm.draft`` is "none" by default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_crs.lm import prompt_lookup
from trace_crs.lm.backend import TraceLM, build_lm
from trace_crs.lm.config import LMConfig, resolve_lm_config
from trace_crs.lm.llama_worker import Worker
from trace_crs.lm.ranking import TOP_K, fits_messages
from trace_crs.lm.server import LlamaServer

SMOKE = Path("models/smollm2-135m-instruct-q4_1.gguf")
QUOTES = (
    "The rooftop bar has a view of the river and the cocktails are strong but pricey.",
    "Breakfast was cold on Sunday, the staff apologised and brought fresh eggs.",
    "Quiet rooms at the back, street noise at the front until two in the morning.",
)


def _bodies() -> list[dict]:
    """Greedy chat requests: quoting (the reply copies its prompt), a follow-up sharing the
    first's prefix, an unrelated one, one with the repetition guard, and a log-prob call."""
    cards = "\n".join(f'[p{i}] Reviews: [R1] "{q}"' for i, q in enumerate(QUOTES))
    base = {"model": "m", "temperature": 0.0, "seed": 42, "max_tokens": 64}
    ask = [
        "Recommend p0 and quote its review verbatim.",
        "Recommend p2 and quote its review verbatim.",
        "Repeat the three reviews word for word.",
    ]
    bodies = [{**base, "messages": [{"role": "user", "content": f"{cards}\n\n{a}"}]} for a in ask]
    bodies.append({**base, "messages": [{"role": "user", "content": "Name one museum in Paris."}]})
    bodies.append({**bodies[2], "trace_repeat_ngram": 8})
    bodies.append(
        {**base, "max_tokens": 1, "logprobs": True, "top_logprobs": TOP_K, "messages": fits_messages(cards, QUOTES[0])}
    )
    return bodies


def _load(draft: bool):
    from llama_cpp import Llama

    llama = Llama(str(SMOKE), n_ctx=2048, n_threads=1, n_threads_batch=1, verbose=False)
    return prompt_lookup.enable(llama, 5, 3) if draft else llama


def _library_speculative():
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    draft = LlamaPromptLookupDecoding(max_ngram_size=3, num_pred_tokens=5)
    return Llama(str(SMOKE), n_ctx=2048, n_threads=1, n_threads_batch=1, verbose=False, logits_all=True, draft_model=draft)


def _reply(out: dict) -> tuple:
    choice = out["choices"][0]
    return choice["message"], choice["finish_reason"], choice.get("logprobs"), out["usage"]


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_drafted_replies_are_the_library_speculative_ones_not_always_the_plain_ones(monkeypatch):
    pytest.importorskip("llama_cpp")
    bodies = _bodies()
    plain = [_reply(out) for out in map(Worker(_load(False), "m").chat, bodies)]
    library = [_reply(Worker(_library_speculative(), "m").chat(b)) for b in bodies[:-1]]  # no logprobs path there
    passes: list[int] = []  # verification batches (sampled token + drafts) of the drafted worker
    real = prompt_lookup.eval_for_drafts

    def counting(llama, tokens, draft_tokens):
        if len(tokens) <= draft_tokens + 1:
            passes.append(len(tokens))
        return real(llama, tokens, draft_tokens)

    monkeypatch.setattr(prompt_lookup, "eval_for_drafts", counting)
    got = [_reply(out) for out in map(Worker(_load(True), "m").chat, bodies)]
    assert got[:-1] == library  # the same tokens as llama-cpp-python's speculative decoding
    assert got[-1] == plain[-1]  # a log-prob call is answered from the prompt alone, drafts or not
    decoded = sum(r[3]["completion_tokens"] for r in got[:-1])
    assert decoded > 0 and max(passes) > 1  # drafts were proposed and verified in one batch
    assert len(passes) < decoded  # ... and accepted: fewer forward passes than decoded tokens
    differing = sum(g[0] != p[0] for g, p in zip(got, plain, strict=True))
    # measured with this llama.cpp build: 3 of the 5 generated replies differ from the plain ones
    # (a flipped near-tie, then a different continuation); the count is reported, not required
    print(f"drafted replies differing from token-by-token decoding: {differing} of {len(bodies) - 1}")
    assert LMConfig().draft == "none"  # hence off by default


def test_enable_refuses_bad_settings_and_a_logits_all_model():
    class Loaded:
        _logits_all = True

    with pytest.raises(ValueError, match="draft_tokens"):
        prompt_lookup.enable(Loaded(), 0, 3)
    with pytest.raises(ValueError, match="logits_all"):
        prompt_lookup.enable(Loaded(), 5, 3)


def test_config_validates_the_draft_setting():
    assert LMConfig().draft == "none"
    assert resolve_lm_config(overrides=["draft=prompt-lookup"]).draft == "prompt-lookup"
    for bad, match in (({"draft": "eagle"}, "lm.draft"), ({"draft_tokens": 0}, "draft_tokens")):
        with pytest.raises(ValueError, match=match):
            LMConfig(**bad)
    with pytest.raises(ValueError, match="slots"):
        LMConfig(draft="prompt-lookup", slots=2)


def test_worker_command_carries_the_draft_flags_only_when_on():
    server = LlamaServer.__new__(LlamaServer)
    server.model_path, server.alias, server.n_ctx, server.n_threads, server.program = Path("m.gguf"), "a", 512, 1, "trace"
    assert "--draft" not in server.command(1)
    server.draft = ("prompt-lookup", 7, 2)
    assert "--draft prompt-lookup --draft_tokens 7 --draft_ngram 2" in " ".join(server.command(1))


@pytest.mark.skipif(not SMOKE.exists(), reason="make models-smoke")
def test_drafts_need_the_one_sequence_trace_worker():
    for kwargs in ({"program": "llama_cpp"}, {"slots": 2}):
        with pytest.raises(ValueError, match="one-sequence Trace worker"):
            LlamaServer(SMOKE, "a", draft=("prompt-lookup", 5, 3), **kwargs)


def test_the_draft_setting_never_changes_a_request_or_its_cache_key(monkeypatch):
    keys: list[str] = []
    monkeypatch.setattr(TraceLM, "_forward", lambda self, prompt, messages, kwargs, key: keys.append(key))
    messages = [{"role": "user", "content": "Recommend a quiet hotel."}]
    for cfg in (LMConfig(), LMConfig(draft="prompt-lookup", draft_tokens=9, draft_ngram=4)):
        build_lm(cfg, api_base="http://127.0.0.1:1/v1").forward(messages=messages)
    assert len(keys) == 2 and keys[0] == keys[1]
