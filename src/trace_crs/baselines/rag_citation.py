"""RAGCitationBaseline (paper Appendix F): Jaccard-retrieved review evidence + a quote constraint.

Evidence: the review sentences (``responses.sentence_spans``) of the shown candidates with
at least ``MIN_QUOTE_TOKENS`` tokens, scored by Jaccard similarity ``|Q ∩ S| / |Q ∪ S|``
between the content-term sets of the query (all user turns) and the sentence; the top 10
(ties: POI order shown, then review id, then position) are numbered ``[R1]``… with the POI
name and star rating.  The reply must contain at least one verbatim quote of ≥ 10 tokens
``"…" [Rn]`` taken from the labelled sentence; if the check fails the call is repeated with
feedback, up to 2 retries, and the last reply is kept.  Each retry's feedback names its attempt
(:func:`retry_feedback`): with greedy decoding and the LM cache an identical request would
return the identical reply, so a repeated prompt would be no retry at all.
Ranking as LLM Zero-Shot: ``generative`` — one call returns the ranked ids and the reply
(:class:`CiteAndRecommend`, the paper's); ``logprob`` — the cards are ranked by log P(yes)
(:mod:`trace_crs.lm.ranking`) and the call writes the reply alone over them, best first
(:class:`CiteAndRespond`, prompt ``rag-respond v1``).  Asking a logprob-mode call for ids nobody
reads made a small local model decode a list it could rarely format, and each unparseable
answer cost DSPy's JSON-adapter retry (45 % of the recorded RAG calls of the default build, LM
records at 69d275f5); a single ``str`` output is read leniently (:mod:`trace_crs.lm.adapter`).
Open set: TF-IDF top-16.
"""

from __future__ import annotations

import dspy

from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.llm_common import (
    Evidence,
    extract_citations,
    history_text,
    instruction,
    parse_ranking,
    rank_candidates,
)
from trace_crs.baselines.llm_zero_shot import PrefilteredBaseline, shown_candidates, turn_seed
from trace_crs.baselines.responses import sentence_spans
from trace_crs.baselines.text import content_terms, tokenize
from trace_crs.prompts import signature

TOP_SENTENCES = 10
MIN_QUOTE_TOKENS = 10
CITATION_RETRIES = 2
NO_QUOTE = (
    "Your previous reply had no verbatim quote of at least 10 words from the evidence; "
    "copy one evidence sentence exactly inside double quotes followed by its [Rn] label."
)


CiteAndRecommend = signature("cite_and_recommend", __name__)
CiteAndRespond = signature("cite_and_respond", __name__)


def jaccard(a: set[str], b: set[str]) -> float:
    """``|a ∩ b| / |a ∪ b|`` (0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def top_sentences(ctx: TurnContext, shown: list[str], k: int = TOP_SENTENCES) -> list[tuple[str, str, str]]:
    """``(poi_id, review_id, sentence)`` of the ``k`` best Jaccard matches to the user turns."""
    query = content_terms(ctx.user_texts)
    scored = []
    for rank, pid in enumerate(shown):
        for review in ctx.kb.reviews_of(pid):
            for pos, (start, end) in enumerate(sentence_spans(review.text)):
                sentence = review.text[start:end]
                if len(tokenize(sentence)) >= MIN_QUOTE_TOKENS:
                    scored.append(
                        (-jaccard(query, content_terms([sentence])), rank, review.review_id, pos, pid, sentence)
                    )
    scored.sort(key=lambda s: s[:4])
    return [(pid, rid, sentence) for _, _, rid, _, pid, sentence in scored[:k]]


def retry_feedback(failed: int) -> str:
    """The feedback after ``failed`` failed attempts (≥ 1); the first retry's text is :data:`NO_QUOTE`."""
    if failed <= 1:
        return NO_QUOTE
    return f"{NO_QUOTE} Attempt {failed + 1} of {CITATION_RETRIES + 1}: your last {failed} replies had none."


def citation_ok(citations: list[dict]) -> bool:
    """True when some citation is verbatim (has ``start``) and has ≥ ``MIN_QUOTE_TOKENS`` tokens."""
    return any("start" in c and len(tokenize(c["quote"])) >= MIN_QUOTE_TOKENS for c in citations)


class RAGCitationModule(dspy.Module):
    """Jaccard evidence → ranked ids + reply with a checked verbatim quote."""

    def __init__(self, prefilter: str = "tfidf") -> None:
        super().__init__()
        self.prefilter = prefilter
        self.cite = dspy.Predict(CiteAndRecommend)
        self.cite_ranked = dspy.Predict(CiteAndRespond)  # logprob mode: the ranking is already made

    def forward(self, ctx: TurnContext, mode: str, seed: int) -> dspy.Prediction:
        order, shown = shown_candidates(ctx, self.prefilter)
        conversation = history_text(ctx.history)
        if mode == "logprob":
            shown = rank_candidates(ctx, shown, conversation, mode, turn_seed(ctx, seed))
        evidence = Evidence()
        lines = []
        for pid, rid, sentence in top_sentences(ctx, shown):
            poi = ctx.kb.pois[pid]
            lines.append(f'[{evidence.add(rid, sentence)}] {poi.name} ({poi.stars:.1f} stars): "{sentence}"')
        cands = "\n".join(f"[{c}] {ctx.kb.pois[c].name}, {ctx.kb.pois[c].stars:.1f} stars" for c in shown)
        feedback = ""
        cite = self.cite_ranked if mode == "logprob" else self.cite
        for attempt in range(CITATION_RETRIES + 1):
            pred = cite(
                conversation=conversation,
                candidates=cands,
                evidence="\n".join(lines),
                instruction=instruction(ctx.action),
                feedback=feedback,
            )
            citations = extract_citations(pred.response, evidence, ctx.kb)
            if citation_ok(citations):
                break
            feedback = retry_feedback(attempt + 1)
        ranked = shown if mode == "logprob" else parse_ranking(pred.ranked_ids, shown)
        ranked = list(ranked) + [c for c in order if c not in ranked]
        return dspy.Prediction(
            ranked_poi_ids=ranked, text=pred.response, citations=citations, citation_attempts=attempt + 1
        )


class RAGCitationBaseline(PrefilteredBaseline, key="rag_citation"):
    """Retrieval-augmented generation with a verbatim-quote constraint."""

    module_class = RAGCitationModule
