"""``trace-crs judge core`` through the real LM backend (DSPy + litellm) against a fake
OpenAI-compatible server on 127.0.0.1: ``--set lm.model=openai/<name> --set lm.api_base=<url>``
works, tokens are counted per transcript, and a rerun replays from the LM cache."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from trace_crs.cli import main

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
FIXTURE = Path(__file__).parent / "fixtures" / "movie_crs.jsonl"


def _judge(messages: list) -> str:
    """Debate statements score 55; Novelty's first answer is not a rating (a retry); else 2."""
    last = messages[-1]["content"]
    if '"dimension_name"' in last:
        return "[[ ## statement ## ]]\nUsable.\n\n[[ ## score ## ]]\n55\n\n[[ ## completed ## ]]"
    if 'factor="Novelty"' in last and "Attempt 2" not in last:
        return "[[ ## rationale ## ]]\nhmm\n\n[[ ## rating ## ]]\nfour\n\n[[ ## completed ## ]]"
    return "[[ ## rationale ## ]]\nSound.\n\n[[ ## rating ## ]]\n2\n\n[[ ## completed ## ]]"


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)  # the fake server counts 4 characters a token


@pytest.fixture
def server(fake_openai):
    """The suite's fake OpenAI-compatible server (tests/conftest.py) answering with :func:`_judge`."""
    return fake_openai(_judge)


def test_openai_compatible_endpoint_usage_and_replay(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")                   # the fake server ignores it
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURE), "--out", str(t)])
    argv = ["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "1", "--aggregator", "debate",
            "--set", "lm.model=openai/fake-judge", "--set", f"lm.api_base={server.url}",
            "--set", f"lm.cache_dir={tmp_path / 'lm'}"]
    assert main(argv) == 0
    [r] = [json.loads(x) for x in o.read_text().splitlines()]
    # 12 factor calls + 1 retry (Novelty's "four") + 4 debaters, unanimous after round 1
    assert len(server.calls) == 17 and r["usage"]["calls"] == 17
    prompt = sum(_tokens("".join(str(m.get("content") or "") for m in msgs)) for msgs in server.calls)
    completion = sum(_tokens(_judge(msgs)) for msgs in server.calls)
    assert (r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"]) == (prompt, completion)
    assert r["factors"]["novelty"] == 2 and r["core_avg"] == 2.0 and r["debate"]["score"] == 55.0
    assert r["judge"] == "openai/fake-judge"
    o.unlink()
    assert main(argv) == 0                                                   # replayed from the LM cache
    [again] = [json.loads(x) for x in o.read_text().splitlines()]
    assert len(server.calls) == 17 and again["usage"] == r["usage"]         # replay reports the measured usage
    assert again == r
