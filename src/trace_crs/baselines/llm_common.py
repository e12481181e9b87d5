"""Plumbing shared by the LLM baselines (paper §4, Appendix F).

* :class:`LLMBaseline` — the ``Baseline`` adapter around one DSPy module: it owns the LM
  (built from one :class:`~trace_crs.lm.config.LMConfig`, or passed in), runs the module under
  ``dspy.context(lm=...)``, retries failures (timeout, connection refused, unparseable
  output) with exponential backoff — attempt ``k > 0`` uses ``rollout_id=k`` and a
  temperature of at least 0.7 so a cached bad answer is not replayed — and then falls back
  to Popularity (``Usage.fallback=True``, ``Usage.error`` set).  A model that declines with
  TravelBench's ``[Unsolved]`` marker (in its ranking or its reply) abstains instead: an empty
  ranking and a reply carrying the marker, neither retried nor replaced by the fallback.
* Prompt material: dialogue history, POI cards with numbered review excerpts ``[Rn]``
  (:class:`Evidence`), the one-sentence action instructions, and parsing of the model's id
  list and of its ``"quote" [Rn]`` citations.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from contextlib import ExitStack
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, ClassVar

import dspy
import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.baselines.ask_rule import ASK_RE, ASK_RULE, MAY_ASK
from trace_crs.baselines.base import BaselineOutput, TurnContext, Usage
from trace_crs.baselines.popularity import fallback_output
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.unsolved_rule import UNSOLVED_RULE
from trace_crs.dialogues.quote_reader import parse_quotes
from trace_crs.dialogues.unsolvable import ABSTAIN_TEXT
from trace_crs.dialogues.unsolvable import UNSOLVED_RE as UNSOLVED
from trace_crs.kb import KB
from trace_crs.lm.adapter import LenientChatAdapter
from trace_crs.lm.backend import build_lm, open_lm
from trace_crs.lm.config import AUTO, LMConfig, resolve_lm_config
from trace_crs.lm.ranking import logprob_rank, score_fit
from trace_crs.lm.usage import recording_usage

PROMPT_VERSION = "v2"  # v2: RankAndRespond shows the cards before the conversation
REVIEW_CHARS = 200
ACTION_INSTRUCTIONS: dict[str, str] = {
    "recommend": "Recommend the best-fitting place for the traveler and say why, quoting reviews.",
    "compare": "Compare the two best-fitting places for the traveler, quoting reviews for each.",
}
ROLES = {"user": "Traveler", "system": "Assistant"}


class Unsolved(ValueError):
    """The model declined the request with ``[Unsolved]`` instead of ranking."""


def history_text(turns: Sequence[dict[str, Any]]) -> str:
    """``Traveler: …`` / ``Assistant: …`` lines of the turns so far."""
    return "\n".join(f"{ROLES[t['role']]}: {t['text']}" for t in turns)


def instruction(action: str) -> str:
    """The one-sentence action instruction (ValueError for an unknown action), with TravelBench's
    decline rule and, in the live loop while a question is left, the ``[Ask]`` rule
    (:mod:`trace_crs.baselines.ask_rule`), each a separate sentence."""
    if action not in ACTION_INSTRUCTIONS:
        raise ValueError(f"no LLM instruction for action {action!r}; known: {sorted(ACTION_INSTRUCTIONS)}")
    ask = f" {ASK_RULE}" if MAY_ASK.get() else ""
    return f"{ACTION_INSTRUCTIONS[action]} {UNSOLVED_RULE}{ask}"


class Evidence:
    """Numbered review excerpts shown to the LLM: label ``Rn`` → (review_id, excerpt)."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[str, str]] = {}

    def add(self, review_id: str, excerpt: str) -> str:
        label = f"R{len(self.items) + 1}"
        self.items[label] = (review_id, excerpt)
        return label


# Whether POI cards also print the generator's facet labels (``lm.cards=labelled``, an ablation);
# set by LLMBaseline.predict for the duration of one turn.
LABELLED_CARDS: ContextVar[bool] = ContextVar("labelled_cards", default=False)


def facts(kb: KB, poi_id: str) -> str:
    """One line of public facts — name, categories, stars, review count, price — as a deployed
    system sees them; with ``LABELLED_CARDS`` also the generator's facet labels."""
    poi = kb.pois[poi_id]
    attrs = poi.attributes
    parts = [f"{poi.name} ({', '.join(poi.categories[:4])})", f"{poi.stars:.1f} stars, {poi.review_count} reviews"]
    if poi.price is not None:
        parts.append("price " + "$" * poi.price)
    if not LABELLED_CARDS.get():
        return "; ".join(parts)
    for key in ("style", "noise"):
        if attrs.get(key):
            parts.append(f"{key}: {attrs[key]}")
    for key in ("ambience", "features"):
        if attrs.get(key):
            parts.append(f"{key}: {', '.join(attrs[key])}")
    return "; ".join(parts)


def poi_card(
    kb: KB, poi_id: str, evidence: Evidence | None = None, n_reviews: int = 2, chars: int = REVIEW_CHARS
) -> str:
    """``[id] facts`` followed by the top ``n_reviews`` reviews (stars desc, id), cut to ``chars``;
    with ``evidence`` each excerpt gets an ``[Rn]`` label the model can cite."""
    top = sorted(kb.reviews_of(poi_id), key=lambda r: (-r.stars, r.review_id))[:n_reviews]
    lines = [f"[{poi_id}] {facts(kb, poi_id)}"]
    for review in top:
        excerpt = review.text[:chars]
        label = evidence.add(review.review_id, excerpt) if evidence is not None else ""
        lines.append(f"  {'[' + label + '] ' if label else ''}\"{excerpt}\"")
    return "\n".join(lines)


def cards_text(kb: KB, ids: Sequence[str], evidence: Evidence | None) -> str:
    """Cards for ``ids``: 2 reviews each up to 16 candidates, 1 beyond (context budget)."""
    n_reviews = 2 if len(ids) <= 16 else 1
    return "\n".join(poi_card(kb, i, evidence, n_reviews) for i in ids)


def parse_ranking(raw: Sequence[Any] | str, candidates: Sequence[str]) -> list[str]:
    """Valid candidate ids named in ``raw`` (ids, ``[id]`` or 1-based card numbers), deduplicated,
    followed by the unnamed candidates in pool order.  ValueError when none is valid,
    :class:`Unsolved` for ``[Unsolved]``; an ``[Ask]`` ranking while asking is allowed is the pool
    order (the reply carries the question)."""
    items = re.split(r"[,\s]+", raw) if isinstance(raw, str) else list(raw)
    named: list[str] = []
    for item in items:
        token = str(item).strip().strip("[]'\" ")
        if token.isdigit() and token not in candidates and 1 <= int(token) <= len(candidates):
            token = candidates[int(token) - 1]
        if token in candidates and token not in named:
            named.append(token)
    if not named:  # DSPy parses a bare "[Unsolved]" list field into ["Unsolved"]: the token counts too
        joined = raw if isinstance(raw, str) else " ".join(map(str, raw))
        if MAY_ASK.get() and (
            ASK_RE.search(joined) or any(str(i).strip().strip("[]'\" ").casefold() == "ask" for i in items)
        ):
            return list(candidates)  # the model asks: its reply carries the question (live.ask reads it)
        if any(str(i).strip().strip("[]'\" ").casefold() == "unsolved" for i in items) or UNSOLVED.search(joined):
            raise Unsolved("the model answered [Unsolved]")
        raise ValueError(f"unparseable ranking: none of {list(items)[:5]} is a candidate id")
    return named + [c for c in candidates if c not in named]


def extract_citations(text: str, evidence: Evidence, kb: KB) -> list[dict[str, Any]]:
    """Citations ``{"label", "review_id", "quote"[, "start", "end"]}`` for each quote of ``text``
    (read as the scorer reads it, :mod:`trace_crs.dialogues.quote_reader`: ``"…" [Rn]``,
    typographic marks, label first, several labels — one citation per label) whose label was
    shown; ``start``/``end`` only when the quote is verbatim."""
    out = []
    for q in parse_quotes(text):
        quote = q.text.strip()
        for label in q.labels:
            if label not in evidence.items:
                continue
            review_id = evidence.items[label][0]
            cite: dict[str, Any] = {"label": label, "review_id": review_id, "quote": quote}
            start = review_text(kb, review_id).find(quote)
            if start >= 0:
                cite.update(start=start, end=start + len(quote))
            out.append(cite)
    return out


def review_text(kb: KB, review_id: str) -> str:
    """Text of one review (KeyError naming the id if unknown)."""
    review = kb.reviews.get(review_id)
    if review is None:
        raise KeyError(f"review {review_id!r} not in KB")
    return review.text


def prefilter(ctx: TurnContext, scores: np.ndarray, k: int = 16) -> tuple[str, ...]:
    """The top-``k`` candidates by ``scores`` (rejected last), for open-set LLM input."""
    return tuple(rank_by_score(ctx.candidates, scores, ctx.rejected_poi_ids)[:k])


def subset(ctx: TurnContext, candidates: Sequence[str]) -> TurnContext:
    """``ctx`` restricted to ``candidates``."""
    return replace(ctx, candidates=tuple(candidates))


def rank_candidates(ctx: TurnContext, candidates: Sequence[str], conversation: str, mode: str, seed: int) -> list[str]:
    """``logprob`` mode: each card scored by log P(yes) with the current DSPy LM, visited in a
    ``seed``-shuffled order (``generative`` ranking lives in each baseline's signature)."""
    if mode != "logprob":
        raise ValueError(f"rank_candidates handles mode 'logprob' only, got {mode!r}")
    lm = dspy.settings.lm
    cards = {c: poi_card(ctx.kb, c) for c in candidates}
    ranked, _ = logprob_rank(
        list(candidates), cards, conversation, lambda conv, card: score_fit(lm, conv, card), seed, ctx.rejected_poi_ids
    )
    return ranked


class LLMBaseline(Registered):
    """A ``Baseline`` wrapping one DSPy module built by :meth:`build_module`.

    ``lm_config`` defaults to the ``local`` preset; ``lm`` (any ``dspy.LM``, e.g. ``DummyLM``)
    overrides it.  ``prepare`` opens the backend (starting the local server if needed);
    ``close`` stops it.  ``ranks_with_llm = False`` marks pipeline baselines (DST, MRS) whose
    ranking is non-LLM: their ``Usage.mode`` is ``"pipeline"``.
    """

    ranks_with_llm: ClassVar[bool] = True
    # the ranking modes this baseline's module implements (LMConfig.mode; pipeline baselines ignore it)
    modes: ClassVar[tuple[str, ...]] = ("generative", "logprob")
    # what ``lm.mode=auto`` means for this baseline: its layout for a local model (guides/local_model.md)
    auto_mode: ClassVar[str] = "logprob"

    def __init__(
        self, lm_config: LMConfig | dict[str, Any] | None = None, lm: dspy.LM | None = None, seed: int = DEFAULT_SEED
    ) -> None:
        self.lm_config = lm_config if isinstance(lm_config, LMConfig) else resolve_lm_config(lm_config)
        if self.ranks_with_llm and self.ranking_mode not in self.modes:
            raise ValueError(
                f"{type(self).__name__}: lm.mode {self.lm_config.mode!r} not implemented; known: {self.modes}"
            )
        self.seed = seed
        self._lm = lm
        self._stack: ExitStack | None = None
        self.module = self.build_module()

    def build_module(self) -> dspy.Module:  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def resolve_mode(cls, mode: str) -> str:
        """``lm.mode`` as this baseline ranks by it: ``auto`` read as its :attr:`auto_mode`."""
        return cls.auto_mode if mode == AUTO else mode

    @property
    def ranking_mode(self) -> str:
        """The configured ``lm.mode``, resolved (:meth:`resolve_mode`)."""
        return self.resolve_mode(self.lm_config.mode)

    @property
    def mode(self) -> str:
        """``Usage.mode`` label of this baseline's outputs."""
        return self.ranking_mode if self.ranks_with_llm else "pipeline"

    def configured_lm(self) -> dspy.LM:
        """The LM this baseline uses (built from the config without any network or server)."""
        return self._lm if self._lm is not None else build_lm(self.lm_config)

    def prepare(self, kb: KB) -> None:
        """Open the LM backend once (local: start or share the llama.cpp server)."""
        if self._lm is None:
            self._stack = ExitStack()
            self._lm = self._stack.enter_context(open_lm(self.lm_config))

    def close(self) -> None:
        """Release the backend (stops a local server this baseline started)."""
        if self._stack is not None:
            self._stack.close()
            self._stack, self._lm = None, None

    def _attempt_lm(self, attempt: int) -> dspy.LM:
        lm = self._lm if self._lm is not None else self.configured_lm()
        if attempt == 0 or not hasattr(lm, "copy"):
            return lm
        return lm.copy(rollout_id=attempt, temperature=max(float(lm.kwargs.get("temperature") or 0.0), 0.7))

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        """Run the module; retry with backoff; fall back to Popularity after the last failure."""
        start = time.perf_counter()
        cfg = self.lm_config
        error, pred = "", None
        labelled = LABELLED_CARDS.set(cfg.cards == "labelled")
        with recording_usage() as tally:
            for attempt in range(cfg.retries + 1):
                try:
                    with dspy.context(lm=self._attempt_lm(attempt), adapter=LenientChatAdapter()):
                        pred = self.module(ctx=ctx, mode=self.ranking_mode, seed=self.seed)
                    break
                except Unsolved:  # a decline is an answer (the abstain act), not a failure to retry
                    pred = dspy.Prediction(ranked_poi_ids=[], text=ABSTAIN_TEXT, citations=[])
                    break
                except Exception as exc:
                    error = f"{type(exc).__name__}: {str(exc)[:300]} (after {attempt + 1} attempt(s))"
                    if attempt < cfg.retries:
                        time.sleep(cfg.backoff_s * 2**attempt)
        LABELLED_CARDS.reset(labelled)
        lm = self._lm if self._lm is not None else None
        # a replayed call takes ~0 s: add the seconds it took when it was made (lm.backend)
        usage = Usage(
            latency_s=time.perf_counter() - start + tally.replayed_s,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            cost_usd=tally.cost_usd,
            model=getattr(lm, "model", "") or "",
            mode=self.mode,
        )
        if pred is None:
            return fallback_output(ctx, error, usage)
        if UNSOLVED.search(pred.text or "") or (MAY_ASK.get() and ASK_RE.search(pred.text or "")):
            return BaselineOutput([], pred.text, [], usage)  # a decline, or a question (live loop only)
        return BaselineOutput(list(pred.ranked_poi_ids), pred.text, list(pred.citations), usage)
