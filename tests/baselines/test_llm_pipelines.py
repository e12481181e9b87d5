"""DST, RAG-Citation, Multi-Review Synthesis, Memory-Aug. and Itinerary-LLM with DummyLM;
every expected value is worked out by hand from the 4-POI fixture (test_llm_helpers)."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from dspy.utils import DummyLM
from test_llm_helpers import make_ctx, make_dialogue, make_kb, reset_dspy  # noqa: F401

from trace_crs.baselines import memory as mem
from trace_crs.baselines.dst import DialogueState, DSTBaseline, passes
from trace_crs.baselines.itinerary_llm import ItineraryLLMBaseline
from trace_crs.baselines.memory import MemoryAugmentedBaseline, MemoryItem, PreferenceMemory
from trace_crs.baselines.mrs import MultiReviewSynthesisBaseline
from trace_crs.baselines.rag_citation import RAGCitationBaseline, jaccard
from trace_crs.lm.config import resolve_lm_config

GEN = resolve_lm_config({"mode": "generative", "retries": 0})
P1_R0 = "The handmade pasta was wonderful and the room was quiet enough for a long talk."


def _delta(**kw):
    base = {"price_max": None, "styles": [], "avoid_styles": [], "ambience": [], "noise": None,
            "features": [], "location": None}
    return {**base, **kw}


def test_dst_tracks_state_filters_and_ranks(monkeypatch):
    # Turn 1: italian, quiet, price ≤ 3; turn 3: price ≤ 2.  Passing: p1 (italian, $$, quiet) only;
    # p2 is $$$$ (fails price) and rejected.  TF-IDF stubbed: p3 .9, p4 .5, p2 .3, p1 .1.
    monkeypatch.setattr("trace_crs.baselines.tfidf.tfidf_scores", lambda ctx: np.array([0.1, 0.3, 0.9, 0.5]))
    lm = DummyLM([{**_delta(styles=["Italian"], noise="quiet", price_max=3)}, {**_delta(price_max=2)},
                  {"response": "Luigi Trattoria it is."}])
    out = DSTBaseline(GEN, lm=lm).predict(make_ctx())
    assert out.ranked_poi_ids == ["p1", "p3", "p4", "p2"]
    assert (out.usage.mode, out.usage.fallback, out.text) == ("pipeline", False, "Luigi Trattoria it is.")
    state_prompt = lm.history[-1]["messages"][-1]["content"]
    assert '"price_max": 2' in state_prompt and '"styles": ["italian"]' in state_prompt
    assert '"rejected": ["p2"]' in state_prompt


@pytest.mark.parametrize("state, expected", [
    (DialogueState(), {"p1", "p2", "p3", "p4"}),                       # empty state: all pass
    (DialogueState(price_max=1), {"p3"}),                               # only p3 is $
    (DialogueState(styles=["thai"]), {"p4"}),
    (DialogueState(avoid_styles=["italian"]), {"p3", "p4"}),
    (DialogueState(noise="loud"), {"p3"}),                              # quiet ∉ loud's {loud, average}
    (DialogueState(features=["parking"]), set()),                       # no-match
    (DialogueState(styles=["sushi"]), set()),
])
def test_dst_filter(state, expected):
    kb = make_kb()
    assert {p for p in kb.pois if passes(kb.pois[p], state)} == expected


def test_dst_merge_latest_scalar_and_avoid_removes_style():
    class D:  # a delta with attribute access, like dspy.Prediction
        def __init__(self, **kw):
            self.__dict__.update(_delta(**kw))
    s = DialogueState().merge(D(styles=["Italian", "thai"], price_max=3)).merge(D(avoid_styles=["thai"], price_max=9))
    assert (s.styles, s.avoid_styles, s.price_max) == (["italian"], ["thai"], 3)   # 9 is out of 1–4: ignored


def test_jaccard_by_hand():
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 0.0


def test_rag_citation_retries_until_a_long_verbatim_quote():
    # Evidence: sentences with ≥ 10 tokens.  First reply quotes 3 words only → retry with feedback.
    bad = {"ranked_ids": ["p1"], "response": 'Try "handmade pasta was" [R2].'}
    good_quote = P1_R0[:-1]  # a ≥10-token verbatim prefix of the sentence
    lm = DummyLM([bad, {"ranked_ids": ["p1", "p4"], "response": f'Luigi: "{good_quote}" [R2].'}])
    out = RAGCitationBaseline(GEN, lm=lm).predict(make_ctx())
    assert out.usage.fallback is False
    assert out.ranked_poi_ids == ["p1", "p4", "p2", "p3"]
    ev_prompt = lm.history[0]["messages"][-1]["content"]
    # Query terms (12): hi want quiet italian dinner pasta expensive pricey something cheaper still please.
    # p2 sentence terms (7): expensive tiramisu wine list excellent special dinner → 2/17 = 0.118 → R1;
    # p1 pasta sentence (8): handmade pasta wonderful room quiet enough long talk → 2/18 = 0.111 → R2;
    # p4 curry sentence (9 terms, 'quiet') → 1/20 = 0.05 → R3.
    assert '[R1] Roma Grand (4.0 stars): "Expensive but the tiramisu' in ev_prompt
    assert f'[R2] Luigi Trattoria (4.5 stars): "{P1_R0}"' in ev_prompt
    assert '[R3] Thai Garden (3.5 stars): "Spicy green curry' in ev_prompt
    assert "verbatim quote of at least 10 words" in lm.history[1]["messages"][-1]["content"]
    assert out.citations[0]["review_id"] == "p1_r0" and out.citations[0]["start"] == 0


def test_rag_citation_keeps_last_reply_after_two_failed_retries():
    replies = [{"ranked_ids": ["p4"], "response": f"no quote {i}"} for i in range(3)]
    lm = DummyLM(replies)
    out = RAGCitationBaseline(GEN, lm=lm).predict(make_ctx())
    assert (out.text, out.citations, out.usage.fallback) == ("no quote 2", [], False)
    assert len(lm.history) == 3          # 1 call + 2 retries
    prompts = [h["messages"][-1]["content"] for h in lm.history]
    # every retry is a distinct request (greedy decoding + the LM cache would replay a repeat)
    assert len(set(prompts)) == 3
    # the first retry's feedback is the text of earlier builds (their cached replies stay valid)
    assert (
        "Your previous reply had no verbatim quote of at least 10 words from the evidence; "
        "copy one evidence sentence exactly inside double quotes followed by its [Rn] label." in prompts[1]
    )
    assert "Attempt 3 of 3: your last 2 replies had none." in prompts[2]


def test_rag_citation_logprob_mode_asks_for_the_reply_alone():
    # log P(yes): p1 −0.2 > p4 −1.0 > p3 −3.0; p2 (−0.1) is rejected → last.  The one generative call
    # shows the cards in that order and asks only for the reply (no ids to decode: the ranking is made).
    from test_llm_zero_shot import LogprobDummyLM

    lm = LogprobDummyLM([{"response": f'Luigi: "{P1_R0}" [R2].'}], {"p1": -0.2, "p2": -0.1, "p3": -3.0, "p4": -1.0})
    out = RAGCitationBaseline(resolve_lm_config({"mode": "logprob", "retries": 0}), lm=lm).predict(make_ctx())
    assert sorted(lm.judged) == ["p1", "p2", "p3", "p4"]
    assert out.ranked_poi_ids == ["p1", "p4", "p3", "p2"]
    assert len(lm.history) == 1  # a verbatim 16-token quote: no retry
    system, user = (m["content"] for m in lm.history[0]["messages"])
    assert "[rag-respond v1]" in system and "ranked_ids" not in system + user
    candidates = user.split("[[ ## candidates ## ]]")[1].split("[[ ## evidence ## ]]")[0]
    assert re.findall(r"^\[(p\d)\]", candidates, flags=re.M) == ["p1", "p4", "p3", "p2"]
    assert (out.citations[0]["review_id"], out.citations[0]["start"]) == ("p1_r0", 0)


def test_mrs_consensus_ranking_by_hand():
    # Query (user turns) aspect hits: 'quiet' (ambiance), 'dinner' (food), 'expensive' (value) → w = 1/3 each.
    # Sentences (fixture): p1: s1 food+ambiance ('pasta'? no: 'wonderful'+, keywords: 'quiet' ambiance) ...
    # Hand count per POI of (food, service, ambiance, value, location) consensus:
    #   p1 r0: "handmade pasta was wonderful and the room was quiet ..." → ambiance ('quiet'), sentiment + (wonderful)
    #   p1 r1: "Friendly staff, fair prices, and a lovely candle lit patio for a date night" → service (friendly, staff),
    #          value (prices); sentiment + (friendly, lovely) → c = (0, 1, 1, 1, 0)
    #   p2 r0: "Expensive but the tiramisu and the wine list were excellent for a special dinner" → food (wine, dinner),
    #          value (expensive); pos 1 (excellent) neg 1 (expensive) → 0 → c = 0 everywhere
    #   p3 r0: "Loud music and cheap tacos, a fun place ..." → ambiance (loud, music), value (cheap); no sentiment
    #          word → review stars 5 → (5−3)/2 = 1 → c_ambiance = c_value = 1
    #   p4 r0: "Spicy green curry and a calm garden room with quiet music ..." → ambiance; stars 5 → +1
    # Scores (w = 1/3 on food, ambiance, value): p1 2/3, p2 0, p3 2/3, p4 1/3; tie p1/p3 → pool order; p2 rejected.
    lm = DummyLM([{"response": "Reviewers agree the pasta is great."}])
    out = MultiReviewSynthesisBaseline(GEN, lm=lm).predict(make_ctx())
    assert out.ranked_poi_ids == ["p1", "p3", "p4", "p2"]
    assert (out.citations, out.usage.mode) == ([], "pipeline")
    assert "ambiance: 1 positive, 0 negative of 1 sentences" in lm.history[0]["messages"][-1]["content"]


def test_memory_decay_and_persona_isolation(monkeypatch):
    # Stub embeddings: fixed unit vectors per text (independent of MiniLM).
    vecs = {"likes quiet": [1.0, 0.0], "likes loud": [0.6, 0.8], "q": [1.0, 0.0]}
    monkeypatch.setattr(mem, "embed", lambda texts: np.array([vecs[t] for t in texts]))
    m = PreferenceMemory([MemoryItem("date_night", "d0", "likes quiet", 0.0),
                          MemoryItem("date_night", "d1", "likes loud", 168.0),
                          MemoryItem("family", "d2", "likes quiet", 168.0),
                          MemoryItem("date_night", "d9", "likes quiet", 100.0)])
    hits = m.retrieve("date_night", "d9", "q", t_now=168.0, top_k=3)
    # d0: cos 1 × 2^(−168/168) = 0.5; d1: cos 0.6 × 2^0 = 0.6; family and own dialogue excluded.
    assert [(round(s, 6), it.dialogue_id) for s, it in hits] == [(0.6, "d1"), (0.5, "d0")]
    assert m.retrieve("date_night", "d9", "q", 168.0, top_k=1)[0][1].dialogue_id == "d1"
    assert m.retrieve("nobody", "d9", "q", 168.0) == []
    assert math.isclose(mem.DECAY * 168.0, math.log(2))


def test_memory_baseline_carries_preferences_across_sessions(monkeypatch, tmp_path):
    monkeypatch.setattr(mem, "embed", lambda texts: np.array([[1.0, 0.0]] * len(texts)))
    lm = DummyLM([{"ranked_ids": ["p1"], "response": "a"}, {"ranked_ids": ["p4"], "response": "b"}])
    path = tmp_path / "memory.jsonl"
    base = MemoryAugmentedBaseline(GEN, lm=lm, memory_path=path)
    base.predict(make_ctx())                                              # session d1, t = 0
    assert "Remembered preferences" not in lm.history[0]["messages"][-1]["content"]
    out = base.predict(make_ctx(dialogue=make_dialogue("d2")))            # session d2, t = 24 h
    prompt = lm.history[1]["messages"][-1]["content"]
    assert "Remembered preferences" in prompt and "- Too pricey. Something cheaper" in prompt
    assert out.ranked_poi_ids[0] == "p4"
    base.close()
    reloaded = PreferenceMemory.load(path)
    assert [(it.dialogue_id, it.t_hours) for it in reloaded.items] == [("d1", 0.0), ("d1", 0.0), ("d2", 24.0), ("d2", 24.0)]


def test_memory_load_bad_record_names_file_and_line(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"persona_type": "x", "dialogue_id": "d", "text": "t", "t_hours": 1}\n{"persona_type": "x"}\n')
    with pytest.raises(ValueError, match=r"m\.jsonl:2: bad memory record"):
        PreferenceMemory.load(path)


def test_itinerary_llm_shows_the_500m_graph():
    # p1 (27.9500, −82.4570) and p2 (27.9527, −82.4570): Δlat 0.0027° ≈ 300 m < 500 m; p3, p4 are km away.
    lm = DummyLM([{"ranked_ids": ["p1"], "response": "x"}])
    ItineraryLLMBaseline(GEN, lm=lm).predict(make_ctx())
    prompt = lm.history[0]["messages"][-1]["content"]
    assert "[p1] Luigi Trattoria is within 500 m of: [p2] Roma Grand (300 m)" in prompt
    assert "[p3] Taco Loco is within" not in prompt


@pytest.mark.parametrize("cards,labelled", [("public", False), ("labelled", True)])
def test_cards_show_generator_labels_only_in_the_ablation(cards, labelled):
    lm = DummyLM([{"ranked_ids": ["p1"], "response": "x"}])
    cfg = resolve_lm_config({"mode": "generative", "retries": 0, "cards": cards})
    ItineraryLLMBaseline(cfg, lm=lm).predict(make_ctx())
    prompt = lm.history[0]["messages"][-1]["content"]
    assert "Luigi Trattoria (Italian, Restaurants)" in prompt and "price $$" in prompt
    assert ("style: italian" in prompt) is labelled and ("noise:" in prompt) is labelled


def test_unknown_cards_setting_is_rejected():
    with pytest.raises(ValueError, match="lm.cards"):
        resolve_lm_config({"cards": "secret"})
