"""LLMZeroShotBaseline (paper Appendix F; §5): dialogue history + formatted POI cards + a
one-sentence action instruction, no guidelines or structured constraints; Popularity fallback.

Ranking ``mode`` (``Usage.mode``): ``generative`` — the paper's, one call returns the ranked
ids and the reply (:class:`RankAndRespond`, prompt ``zero-shot v2``: the cards before the
conversation, so a dialogue's later turns share them as a cached prefix); ``logprob`` — each
card scored by log P(yes) (:mod:`trace_crs.lm.ranking`), then one call writes the reply over
the top cards (:class:`Respond`); ``choice`` (``lm.mode=auto`` picks it here) — one shared
prefix per dialogue, the ranking read from the model's distribution over card letters and the
reply written by a sibling request over the same prefix (:mod:`trace_crs.baselines.choice`).
Open set: the LLM sees the TF-IDF top-16 (``prefilter="dense"``: the MiniLM top-16, Table 25);
the rest of the pool follows in prefilter order.
"""

from __future__ import annotations

import zlib
from typing import ClassVar

import dspy
import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.choice import choose_and_reply
from trace_crs.baselines.llm_common import (
    Evidence,
    LLMBaseline,
    cards_text,
    extract_citations,
    history_text,
    instruction,
    parse_ranking,
    rank_candidates,
)
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.prompts import signature

PREFILTER_K = 16
PREFILTERS = ("tfidf", "dense")


RankAndRespond = signature("rank_and_respond", __name__)
Respond = signature("respond", __name__)


def turn_seed(ctx: TurnContext, seed: int) -> int:
    """A per-turn seed from the run seed, dialogue id and turn index (stable across runs)."""
    return int(
        np.random.SeedSequence([seed, zlib.crc32(ctx.dialogue_id.encode()), ctx.turn_index]).generate_state(1)[0]
    )


def prefilter_order(ctx: TurnContext, method: str) -> list[str]:
    """All candidates by the prefilter's score (rejected last); pool order when not open-set."""
    if ctx.pool != "open":
        return list(ctx.candidates)
    if method == "tfidf":
        from trace_crs.baselines.tfidf import tfidf_scores

        scores = tfidf_scores(ctx)
    elif method == "dense":
        from trace_crs.baselines.dense import dense_scores

        scores = dense_scores(ctx)
    else:
        raise ValueError(f"prefilter: expected one of {PREFILTERS}, got {method!r}")
    return rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)


def shown_candidates(ctx: TurnContext, method: str) -> tuple[list[str], list[str]]:
    """``(order, shown)``: every candidate in prefilter order (:func:`prefilter_order`) and the
    ones the LLM is shown — the top :data:`PREFILTER_K` of an open set, else all of them."""
    order = prefilter_order(ctx, method)
    return order, order[:PREFILTER_K] if ctx.pool == "open" else order


class ZeroShotModule(dspy.Module):
    """History + cards → ranking + cited reply.  Subclasses add context via :meth:`notes`."""

    def __init__(self, prefilter: str = "tfidf") -> None:
        super().__init__()
        self.prefilter = prefilter
        self.rank_and_respond = dspy.Predict(RankAndRespond)
        self.respond = dspy.Predict(Respond)

    def notes(self, ctx: TurnContext, shown: list[str]) -> str:
        """Extra context appended to the conversation (none for plain Zero-Shot)."""
        return ""

    def forward(self, ctx: TurnContext, mode: str, seed: int) -> dspy.Prediction:
        order, shown = shown_candidates(ctx, self.prefilter)
        conversation = history_text(ctx.history)
        extra = self.notes(ctx, shown)
        if mode == "choice":  # the notes go with the cards, before the conversation (baselines/choice.py)
            ranked, text, evidence = choose_and_reply(
                dspy.settings.lm, ctx, shown, conversation, turn_seed(ctx, seed), extra
            )
            ranked += [c for c in order if c not in ranked]
            return dspy.Prediction(
                ranked_poi_ids=ranked, text=text, citations=extract_citations(text, evidence, ctx.kb)
            )
        if extra:
            conversation = f"{conversation}\n\n{extra}"
        evidence = Evidence()
        if mode == "generative":
            pred = self.rank_and_respond(
                places=cards_text(ctx.kb, shown, evidence),
                conversation=conversation,
                instruction=instruction(ctx.action),
            )
            ranked = parse_ranking(pred.ranked_ids, shown)
        else:
            ranked = rank_candidates(ctx, shown, conversation, mode, turn_seed(ctx, seed))
            pred = self.respond(
                conversation=conversation,
                places=cards_text(ctx.kb, ranked[:3], evidence),
                instruction=instruction(ctx.action),
            )
        ranked += [c for c in order if c not in ranked]
        return dspy.Prediction(
            ranked_poi_ids=ranked, text=pred.response, citations=extract_citations(pred.response, evidence, ctx.kb)
        )


class PrefilteredBaseline(LLMBaseline):
    """An LLM baseline with the open-set ``prefilter`` option (``tfidf``, the paper's, or
    ``dense``, Table 25): its DSPy module, :attr:`module_class`, is built with it."""

    module_class: ClassVar[type[dspy.Module]]

    def __init__(self, lm_config=None, lm=None, seed: int = DEFAULT_SEED, prefilter: str = "tfidf") -> None:
        if prefilter not in PREFILTERS:
            raise ValueError(f"prefilter: expected one of {PREFILTERS}, got {prefilter!r}")
        self.prefilter = prefilter
        super().__init__(lm_config, lm, seed)

    def build_module(self) -> dspy.Module:
        return self.module_class(self.prefilter)


class LLMZeroShotBaseline(PrefilteredBaseline, key="llm_zero_shot"):
    """Unaugmented LLM (the paper's reference LLM baseline)."""

    modes = ("generative", "logprob", "choice")
    auto_mode = "choice"  # one shared prefix per dialogue (baselines/choice.py; issue 44)

    module_class = ZeroShotModule
