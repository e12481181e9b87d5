"""LLM-as-judge (Appendix J "LLM-as-Judge", Appendix T, U) and cross-judge agreement.

One DSPy program, :class:`LikertJudge`, rates a system response on the five 1–5 Likert
scales of Table 7 — Relevance, Informativeness, Grounding Quality, Natural Flow,
Justification — with typed integer outputs (a rating outside 1–5 is an error, never
clipped).  It runs on a seeded subset of turns (``n`` turns drawn without replacement by
``numpy.random.default_rng(seed)``); the judge LM is passed in (DSPy's request cache makes
re-runs free).  Scores are reported as ``judge_<scale>`` columns / means.

Cross-judge agreement (Appendix T): Kendall τ and Spearman ρ between two judges' per-system
mean scores (the baseline ranking), via scipy.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import dspy
import numpy as np
import pandas as pd
from scipy import stats

from trace_crs.kb import KB
from trace_crs.metrics.predictions import Key, cited_texts

SCALES = ("relevance", "informativeness", "grounding_quality", "natural_flow", "justification")


class JudgeResponse(dspy.Signature):
    """Rate the travel recommender's response on five 1-5 Likert scales (5 = best). [v1]"""

    dialogue: str = dspy.InputField(desc="the conversation so far")
    response: str = dspy.InputField(desc="the system response to rate")
    cited_reviews: str = dspy.InputField(desc="the reviews the response cites")
    relevance: int = dspy.OutputField(desc="1-5: does the response address the user's stated need?")
    informativeness: int = dspy.OutputField(desc="1-5: useful, specific, actionable?")
    grounding_quality: int = dspy.OutputField(desc="1-5: are claims supported by the cited reviews?")
    natural_flow: int = dspy.OutputField(desc="1-5: conversational naturalness")
    justification: int = dspy.OutputField(desc="1-5: well-reasoned recommendation explanations?")


class LikertJudge(dspy.Module):
    """The five-scale judge; ``forward`` returns a ``dspy.Prediction`` with one int per scale."""

    def __init__(self) -> None:
        super().__init__()
        self.rate = dspy.Predict(JudgeResponse)

    def forward(self, dialogue: str, response: str, cited_reviews: str) -> dspy.Prediction:
        out = self.rate(dialogue=dialogue, response=response, cited_reviews=cited_reviews)
        ratings = {s: int(getattr(out, s)) for s in SCALES}
        bad = {s: v for s, v in ratings.items() if not 1 <= v <= 5}
        if bad:
            raise ValueError(f"judge returned ratings outside 1-5: {bad}")
        return dspy.Prediction(**ratings)


def dialogue_context(turns: Sequence[Mapping[str, Any]], turn_id: int) -> str:
    """The turns before ``turn_id`` as ``User: …`` / ``System: …`` lines."""
    return "\n".join(f"{t['role'].capitalize()}: {t['text']}" for t in turns if t["turn_id"] < turn_id)


def judge_columns(kb: KB, dialogues: Sequence[Mapping[str, Any]], predictions: Mapping[Key, dict],
                  per_turn: pd.DataFrame, lm: dspy.BaseLM, n: int = 200, seed: int = 42) -> pd.DataFrame:
    """``judge_<scale>`` columns aligned with ``per_turn`` (NaN for turns not in the subset)."""
    out = pd.DataFrame(np.nan, index=per_turn.index, columns=[f"judge_{s}" for s in SCALES])
    if per_turn.empty or n <= 0:
        return out
    pick = np.sort(np.random.default_rng(seed).choice(len(per_turn), size=min(n, len(per_turn)), replace=False))
    turns = {d["dialogue_id"]: d["turns"] for d in dialogues}
    judge = LikertJudge()
    empty = {"ranked_poi_ids": [], "text": "", "citations": []}
    with dspy.context(lm=lm):
        for i in pick:
            row = per_turn.iloc[i]
            pred = predictions.get((row["dialogue_id"], int(row["turn_id"])), empty)
            cited = "\n".join(f"[{k}] {v}" for k, v in sorted(cited_texts(kb, pred).items()))
            r = judge(dialogue=dialogue_context(turns[row["dialogue_id"]], int(row["turn_id"])),
                      response=pred["text"], cited_reviews=cited or "(none)")
            out.iloc[i] = [getattr(r, s) for s in SCALES]
    return out


def cross_judge_agreement(judge_a: Mapping[str, float], judge_b: Mapping[str, float]) -> dict[str, float]:
    """Kendall τ and Spearman ρ between two judges' per-system scores (common systems only).

    Fewer than two common systems → NaN for both.
    """
    common = sorted(set(judge_a) & set(judge_b))
    if len(common) < 2:
        return {"kendall_tau": float("nan"), "spearman_rho": float("nan"), "n_systems": len(common)}
    a, b = [judge_a[k] for k in common], [judge_b[k] for k in common]
    return {"kendall_tau": float(stats.kendalltau(a, b).statistic),
            "spearman_rho": float(stats.spearmanr(a, b).statistic), "n_systems": len(common)}
