"""LLM Zero-Shot's ``choice`` mode with a stand-in LM: the letter distribution ranks the places, the
reply continues the same chat, and a dialogue's requests extend one another (values worked by hand)."""
from __future__ import annotations

import math

import pytest
from test_llm_helpers import make_ctx, reset_dspy  # noqa: F401  (autouse fixture)

from trace_crs.baselines import choice
from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
from trace_crs.baselines.rag_citation import RAGCitationBaseline
from trace_crs.lm.config import resolve_lm_config

CFG = resolve_lm_config({"mode": "choice", "retries": 0})
P1_R0 = "The handmade pasta was wonderful and the room was quiet enough for a long talk."


class ChoiceLM:
    """Answers the letter question with fixed top log-probabilities and the reply with ``reply``."""

    model, kwargs = "stand-in", {}

    def __init__(self, top: list[tuple[str, float]], reply: str = "ok") -> None:
        self.top, self.reply, self.sent = top, reply, []

    def __call__(self, prompt=None, messages=None, **kwargs):  # noqa: ANN001, ANN003
        self.sent.append((messages, kwargs))
        if kwargs.get("logprobs"):
            top = [{"token": t, "logprob": lp} for t, lp in self.top]
            return [{"text": self.top[0][0], "logprobs": {"content": [{**top[0], "top_logprobs": top}]}}]
        return [self.reply]


def test_letter_logprobs_sum_variants_and_floor_the_missing():
    pairs = [("C", -0.1), (" C", -2.0), ("A.", -1.0), ("yes", -3.0)]
    got = choice.letter_logprobs(pairs, "ABC")
    assert got["C"] == pytest.approx(math.log(math.exp(-0.1) + math.exp(-2.0)))
    assert got["A"] == -1.0 and got["B"] == -3.0   # B is not among the top entries: the smallest value


def test_rank_by_choice_puts_rejected_last_and_breaks_ties_by_the_seed():
    scores = {"p1": -1.0, "p2": -0.1, "p3": -1.0, "p4": -2.0}
    ranked = choice.rank_by_choice(["p1", "p2", "p3", "p4"], scores, seed=7, rejected={"p2"})
    assert ranked[2:] == ["p4", "p2"] and set(ranked[:2]) == {"p1", "p3"}
    assert ranked == choice.rank_by_choice(["p1", "p2", "p3", "p4"], scores, seed=7, rejected={"p2"})


def test_the_reply_call_shares_the_choice_prefix_and_names_the_chosen_letter():
    # cards in pool order p1..p4 are A..D; the model prefers C (p3), then A (p1); p2 (B) is rejected
    reply = f'Casa fits: "{P1_R0}" [R1].'
    lm = ChoiceLM([("C", -0.2), ("B", -0.3), ("A", -1.5), ("The", -2.5)], reply)
    out = LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx())
    assert out.ranked_poi_ids == ["p3", "p1", "p4", "p2"]
    assert out.usage.mode == "choice" and not out.usage.fallback
    assert out.citations == [{"label": "R1", "review_id": "p1_r0", "quote": P1_R0, "start": 0, "end": len(P1_R0)}]
    (first, kw1), (second, kw2) = lm.sent
    assert kw1["max_tokens"] == 1 and kw1["logprobs"] and "logprobs" not in kw2
    assert second[0] == first[0] and len(second) == 2      # the same system message: cards and instructions
    conversation = first[1]["content"].removesuffix(choice.QUESTION)
    request = "Reply to the traveler recommending C (Taco Loco), quoting its reviews."   # how: in the system message
    assert second[1] == {"role": "user", "content": conversation + request}
    assert 'quote its reviews verbatim as "quote" [Rn]' in first[0]["content"]
    assert first[0]["content"].count("\nA. [p1]") == 1 and "\nD. [p4]" in first[0]["content"]


def test_a_later_turn_keeps_the_system_message_and_extends_the_conversation():
    lm = ChoiceLM([("A", -0.1)])
    model = LLMZeroShotBaseline(CFG, lm=lm)
    model.predict(make_ctx(turn_index=1))
    model.predict(make_ctx(turn_index=3))
    early, late = lm.sent[0][0], lm.sent[2][0]
    assert early[0] == late[0]   # cards and rules: the same prefix on every turn
    conversation = early[1]["content"].removesuffix(choice.QUESTION)
    assert late[1]["content"].startswith(conversation.rstrip())


def test_compare_names_the_two_best_letters():
    lm = ChoiceLM([("D", -0.1), ("A", -0.5), ("x", -4.0)])   # B, C: -4.0
    LLMZeroShotBaseline(CFG, lm=lm).predict(make_ctx(action="compare"))
    assert lm.sent[1][0][-1]["content"].endswith(
        "\n\nReply to the traveler comparing D (Thai Garden) and A (Luigi Trattoria), quoting their reviews.")


def test_a_baseline_without_the_mode_refuses_it():
    with pytest.raises(ValueError, match="lm.mode 'choice' not implemented"):
        RAGCitationBaseline(CFG, lm=ChoiceLM([("A", -0.1)]))
    with pytest.raises(ValueError, match="at most 52"):
        choice.letters(53)


def test_auto_mode_is_choice_for_the_zero_shot_family_and_logprob_for_the_others():
    auto = resolve_lm_config({"mode": "auto", "retries": 0})
    lm = ChoiceLM([("C", -0.2), ("A", -1.5)], reply=f'Casa fits: "{P1_R0}" [R1].')
    out = LLMZeroShotBaseline(auto, lm=lm).predict(make_ctx())
    assert out.usage.mode == "choice" and out.ranked_poi_ids[0] == "p3"
    assert lm.sent[0][1]["max_tokens"] == 1 and "logprobs" not in lm.sent[1][1]   # the letter, then the reply
    assert RAGCitationBaseline(auto, lm=ChoiceLM([("yes", -0.1)])).ranking_mode == "logprob"
