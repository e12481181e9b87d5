"""The requests the prefiltered LLM baselines (LLM Zero-Shot, RAG-Citation, Itinerary-LLM) send
are frozen: the LM cache of a build is keyed by them.  The SHA-256 of every request (messages and
kwargs, in order) over both pools and both ranking modes was recorded from the implementation
before the prefilter option got its one home (``PrefilteredBaseline``); a change to the request
path fails here.  ``python tests/baselines/test_prefiltered_requests.py --write`` re-records it
(only for an intended prompt change, with a new PROMPT_VERSION).  Re-recorded once without a new
version: RAG-Citation's second retry got feedback of its own (``rag_citation.retry_feedback``),
which changed only the last request of each RAG scenario; every earlier request, and so every
cached reply, is unchanged.  Re-recorded for ``zero-shot v2``
(``llm_common.PROMPT_VERSION``: RankAndRespond shows the cards before the conversation): the six
generative scenarios of LLM Zero-Shot and Itinerary-LLM changed, every logprob-mode request and
every RAG-Citation request is as before.  Re-recorded for ``rag-respond v1``
(``rag_citation.CiteAndRespond``: in logprob mode RAG-Citation asks for the reply alone): the
reply requests of its three logprob scenarios changed; its fit questions and every other request
are as before."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from test_llm_helpers import make_ctx, reset_dspy  # noqa: F401  (autouse fixture)
from test_llm_zero_shot import LogprobDummyLM

from trace_crs.baselines.itinerary_llm import ItineraryLLMBaseline
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.baselines.rag_citation import RAGCitationBaseline
from trace_crs.lm.config import resolve_lm_config

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "baselines" / "prefiltered_requests.json"
BASELINES = {"llm_zero_shot": LLMZeroShotBaseline, "rag_citation": RAGCitationBaseline,
             "itinerary_llm": ItineraryLLMBaseline}
# open2: the open set cut to a top-2 prefilter (PREFILTER_K patched), so the cut shows in the cards
POOLS = ("closed", "open", "open2")
SCENARIOS = [(b, pool, mode) for b in BASELINES for pool in POOLS for mode in ("generative", "logprob")]
REPLY = {"ranked_ids": ["p3", "p1"], "response": 'Try it: "cheap tacos" [R1].'}
YES = {"p1": -0.2, "p2": -1.0, "p3": -0.1, "p4": -2.0}


class RecordingLM(LogprobDummyLM):
    """Keeps every request as sent (the 1-token judgements of logprob mode too)."""

    def __init__(self) -> None:
        super().__init__([REPLY] * 4, YES)
        self.sent: list[dict] = []

    def __call__(self, prompt=None, messages=None, **kwargs):  # noqa: ANN001, ANN003
        self.sent.append({"prompt": prompt, "messages": messages, "kwargs": kwargs})
        return super().__call__(prompt, messages=messages, **kwargs)


def requests(name: str, pool: str, mode: str) -> list[str]:
    """SHA-256 of each request (prompt, messages, kwargs) one turn of ``name`` sends, in order."""
    import trace_crs.baselines.llm_zero_shot as zs
    import trace_crs.baselines.rag_citation as rag

    patched = [m for m in (zs, rag) if hasattr(m, "PREFILTER_K")]
    saved = [m.PREFILTER_K for m in patched]
    for m in patched:
        m.PREFILTER_K = 2 if pool == "open2" else m.PREFILTER_K
    try:
        cfg = resolve_lm_config({"mode": mode, "retries": 0, "backoff_s": 0.0})
        lm = RecordingLM()
        BASELINES[name](cfg, lm=lm).predict(make_ctx(pool=pool.rstrip("2")))
    finally:
        for m, k in zip(patched, saved, strict=True):
            m.PREFILTER_K = k
    return [hashlib.sha256(json.dumps(r, sort_keys=True, default=str).encode()).hexdigest() for r in lm.sent]


@pytest.mark.parametrize("name,pool,mode", SCENARIOS)
def test_requests_are_unchanged(name, pool, mode):
    expected = json.loads(GOLDEN.read_text())[f"{name}/{pool}/{mode}"]
    assert expected and requests(name, pool, mode) == expected


if __name__ == "__main__" and "--write" in sys.argv[1:]:
    import dspy

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    GOLDEN.write_text(json.dumps({f"{b}/{p}/{m}": requests(b, p, m) for b, p, m in SCENARIOS}, indent=1) + "\n")
