"""Knowledge-Enhanced and DST honour what the traveller said they do *not* want, read from the
text alone (the fixture world of ``test_llm_helpers``: p1 Italian $$ quiet, p2 Italian $$$$
quiet, p3 Mexican $ loud, p4 Thai $$ quiet)."""
from __future__ import annotations

import numpy as np
from dspy.utils import DummyLM
from test_llm_helpers import make_ctx, make_dialogue, reset_dspy  # noqa: F401  (reset_dspy: autouse fixture)

from trace_crs.baselines.dst import DSTBaseline
from trace_crs.baselines.knowledge import knowledge_scores
from trace_crs.lm.config import resolve_lm_config

GEN = resolve_lm_config({"mode": "generative", "retries": 0})
EMPTY_DELTA = {"price_max": None, "styles": [], "avoid_styles": [], "ambience": [], "noise": None,
               "features": [], "location": None}


def _ctx(first: str, second: str):
    d = make_dialogue()
    d["turns"][0]["text"], d["turns"][2]["text"] = first, second
    return make_ctx(dialogue=d)


def test_knowledge_penalises_an_avoided_value(monkeypatch):
    # "Nothing loud" → avoid noise=loud: p3 scores −1; the others 0; TF-IDF stubbed to 0.
    monkeypatch.setattr("trace_crs.baselines.knowledge.tfidf_scores", lambda ctx: np.zeros(4))
    scores = knowledge_scores(_ctx("Hi, we are visiting.", "Nothing loud, please."))
    assert list(scores) == [0.0, 0.0, -1.0, 0.0]


def test_knowledge_reads_anything_but_as_avoidance(monkeypatch):
    # "Anything but Italian" is an avoided style: p1 and p2 (Italian) −1, p3 and p4 0.
    monkeypatch.setattr("trace_crs.baselines.knowledge.tfidf_scores", lambda ctx: np.zeros(4))
    scores = knowledge_scores(_ctx("Hi, we are visiting.", "Anything but Italian, please."))
    assert list(scores) == [-1.0, -1.0, 0.0, 0.0]


def test_dst_filters_an_avoided_value_the_llm_state_missed(monkeypatch):
    # The LLM state is empty (all four pass its filter); the text says "nothing loud", so p3
    # (loud) drops behind the passing ones despite the highest TF-IDF: p4 .5, p2 .3, p1 .1, then p3.
    monkeypatch.setattr("trace_crs.baselines.tfidf.tfidf_scores", lambda ctx: np.array([0.1, 0.3, 0.9, 0.5]))
    lm = DummyLM([EMPTY_DELTA, EMPTY_DELTA, {"response": "Thai Garden, then."}])
    out = DSTBaseline(GEN, lm=lm).predict(_ctx("Hi, we are visiting.", "Nothing loud, please."))
    assert out.ranked_poi_ids == ["p4", "p2", "p1", "p3"]
