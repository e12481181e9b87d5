"""LLM-as-judge (Appendix J "LLM-as-Judge", Appendix T, U) and cross-judge agreement.

One DSPy program, :class:`LikertJudge`, rates a system response on the five 1–5 Likert
scales of Table 7 — Relevance, Informativeness, Grounding Quality, Natural Flow,
Justification — with typed integer outputs (a rating outside 1–5 is an error, never
clipped).  Scores are reported as ``judge_<scale>`` columns / means; ``judge_overall`` is the
mean of the five (the paper's "Overall" column).

The judged subset (:func:`judged_turns`) is a function of the dialogue corpus, the seed and
``n`` only, so every baseline — non-LLM rows included — is judged on the same turns, whatever
its predictions or their order (Appendix U: "cover all baselines").  It draws ``n`` dialogues
exactly as ``trace-crs evaluate --subset n --seed`` does (``default_rng(seed).choice`` over the
corpus in file order), then one recommend/compare turn of each with the same generator: with
``judge_n`` equal to an LLM run's ``subset`` the judged dialogues are the ones that run
predicted, and each judged turn is its own dialogue cluster for the bootstrap.  (The paper
judges every recommend/compare turn of a 200-dialogue subset; one turn per dialogue spends the
same number of judge calls on more clusters.)  A turn the LM answers unparseably or out of
range is NaN and counted (``n_failed``), never scored.

The judge's LM usage — calls, prompt/completion tokens, model seconds (a cache replay reports
the seconds measured when the call was made, :func:`trace_crs.lm.usage.recording_usage`),
$ — is returned beside the columns and goes into the score file's ``judge_usage``.

The judge model (:func:`judge_lm_overrides`): ``local`` (the default local weights), the name
of registered local weights (e.g. ``qwen2.5-coder-0.5b-instruct-q4_k_m``), any litellm model
string, or ``key=value,key=value`` LM settings (``model=openai/gpt-4o-mini,api_base=…``).

Cross-judge agreement (Appendix T): Kendall τ and Spearman ρ between two judges' per-system
mean scores (the baseline ranking), via scipy.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dspy
import numpy as np
import pandas as pd
from dspy.utils.exceptions import AdapterParseError
from scipy import stats

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.subset import seeded_indices
from trace_crs.kb import KB
from trace_crs.lm.config import requests_at_once
from trace_crs.lm.usage import recording_usage
from trace_crs.lm.weights import WEIGHTS
from trace_crs.metrics.dialogue import REC_ACTIONS
from trace_crs.metrics.predictions import Key, cited_texts
from trace_crs.prompts import signature

SCALES = ("relevance", "informativeness", "grounding_quality", "natural_flow", "justification")
COLUMNS = [f"judge_{s}" for s in SCALES] + ["judge_overall"]
USAGE_KEYS = ("model", "n", "n_turns", "n_failed", "calls", "prompt_tokens", "completion_tokens", "cost_usd", "seconds")


JudgeResponse = signature("judge_response", __name__)


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


def judge_lm_overrides(judge: str) -> list[str]:
    """LM config overrides (``key=value``) of a judge name (module docstring)."""
    if "=" in judge:
        return [kv.strip() for kv in judge.split(",") if kv.strip()]
    if judge in WEIGHTS:
        return ["model=local", f"weights={judge}"]
    return [f"model={judge}"]


def judged_turns(corpus: Sequence[Mapping[str, Any]], n: int, seed: int = DEFAULT_SEED) -> list[Key]:
    """The seeded judged subset: ``(dialogue_id, turn_id)`` of one recommend/compare turn in
    each of ``n`` seeded dialogues (all dialogues when ``n`` ≥ the corpus), in corpus order."""
    if n <= 0 or not corpus:
        return []
    rng = np.random.default_rng(seed)
    picked = seeded_indices(len(corpus), n, rng)  # the draw of evaluate --subset; rng goes on to pick turns
    out: list[Key] = []
    for i in picked:
        d = corpus[int(i)]
        rec = [t["turn_id"] for t in d["turns"] if t["role"] == "system" and t.get("action") in REC_ACTIONS]
        if rec:
            out.append((d["dialogue_id"], int(rec[int(rng.integers(len(rec)))])))
    return out


def judge_columns(
    kb: KB,
    corpus: Sequence[Mapping[str, Any]],
    predictions: Mapping[Key, dict],
    per_turn: pd.DataFrame,
    lm: dspy.BaseLM,
    n: int = 200,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``judge_<scale>`` and ``judge_overall`` columns aligned with ``per_turn`` (NaN outside the
    judged subset :func:`judged_turns` of ``corpus``, and for failed turns) and the judge usage
    (:data:`USAGE_KEYS`).  Judged turns that ``per_turn`` does not hold (dialogues this run did
    not score) are skipped; ``n_turns`` counts the turns judged.  ``workers`` turns are judged at
    once (default: one per local server of the judge, :func:`~trace_crs.lm.config.requests_at_once`);
    the columns do not depend on it."""
    out = pd.DataFrame(np.nan, index=per_turn.index, columns=COLUMNS)
    usage: dict[str, Any] = {k: 0 for k in USAGE_KEYS} | {"model": getattr(lm, "model", type(lm).__name__), "n": n}
    rows = {(r.dialogue_id, int(r.turn_id)): i for i, r in zip(per_turn.index, per_turn.itertuples(), strict=False)}
    pick = [rows[k] for k in judged_turns(corpus, n, seed) if k in rows]
    if not pick:
        return out, usage
    turns = {d["dialogue_id"]: d["turns"] for d in corpus}
    judge = LikertJudge()
    empty = {"ranked_poi_ids": [], "text": "", "citations": []}

    def rate(i: Any) -> list[float] | None:
        did, tid = per_turn.at[i, "dialogue_id"], int(per_turn.at[i, "turn_id"])
        pred = predictions.get((did, tid), empty)
        cited = "\n".join(f"[{k}] {v}" for k, v in sorted(cited_texts(kb, pred).items()))
        try:
            r = judge(
                dialogue=dialogue_context(turns[did], tid), response=pred["text"], cited_reviews=cited or "(none)"
            )
        except (AdapterParseError, ValueError):  # unparseable or out of range: recorded, not scored
            return None
        return [float(getattr(r, s)) for s in SCALES]

    workers = requests_at_once(lm) if workers is None else workers
    with dspy.context(lm=lm), recording_usage() as tally:
        if workers > 1:  # each thread in a copy of this context: the judge LM and the usage tally
            here = contextvars.copy_context()
            with ThreadPoolExecutor(max_workers=workers) as pool:
                ratings = list(pool.map(lambda i: here.copy().run(rate, i), pick))
        else:
            ratings = [rate(i) for i in pick]
    for i, r in zip(pick, ratings, strict=True):
        if r is None:
            usage["n_failed"] += 1
        else:
            out.loc[i, COLUMNS] = [*r, float(np.mean(r))]
    usage.update(
        n_turns=len(pick),
        calls=tally.calls,
        prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
        cost_usd=round(tally.cost_usd, 8),
        seconds=round(tally.model_s, 3),
    )
    return out, usage


def cross_judge_agreement(judge_a: Mapping[str, float], judge_b: Mapping[str, float]) -> dict[str, float]:
    """Kendall τ and Spearman ρ between two judges' per-system scores (common systems only).

    Fewer than two common systems, or a judge that gives every system the same score (no
    ranking to compare) → NaN for both.
    """
    common = sorted(set(judge_a) & set(judge_b))
    a, b = [judge_a[k] for k in common], [judge_b[k] for k in common]
    if len(common) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return {"kendall_tau": float("nan"), "spearman_rho": float("nan"), "n_systems": len(common)}
    return {
        "kendall_tau": float(stats.kendalltau(a, b).statistic),
        "spearman_rho": float(stats.spearmanr(a, b).statistic),
        "n_systems": len(common),
    }
