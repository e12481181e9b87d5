"""Generator A, the LLM dialogue generator (paper §2.2, Appendix G prompt V2): one DSPy
Signature whose docstring carries the V2 rules, one Module, a conversion of the model's
JSON turns into the dialogue schema (citations parsed from ``"quote" [Rn]``, located in the
cited review and snapped to the exact span when the rapidfuzz partial ratio is ≥ 0.80),
validation (:mod:`validate`) and a retry policy (retries counted, failures recorded).

Runs against any litellm model string; DSPy is never configured at import — the LM is passed
in and used through ``dspy.context``.
"""
from __future__ import annotations

import json
import re
from typing import Any

import dspy
import numpy as np
from rapidfuzz import fuzz
from tqdm import tqdm

from trace_crs.dialogues.generate import city_hotspots
from trace_crs.dialogues.personas import sample_persona, scenario_cycle
from trace_crs.dialogues.pools import expanded_pools, open_set, sample_candidates
from trace_crs.dialogues.schema import REC_ACTIONS
from trace_crs.dialogues.simulator import dialogue_id
from trace_crs.dialogues.splits import assign_splits
from trace_crs.dialogues.tiers import TIER_SPECS, allocate_tiers
from trace_crs.dialogues.validate import FUZZY_THRESHOLD, dialogue_failures
from trace_crs.kb.store import KB

PROMPT_VERSION = "v2"
REVIEWS_PER_CANDIDATE = 5
_CITE = re.compile(r'"([^"]+)" \[(R\d+)\]')


class GenerateDialogue(dspy.Signature):
    """Write a tourism recommendation dialogue (prompt V2): 6-12 turns, strict user/system alternation; user opens with greet_and_seek, system closes with farewell; user actions greet_and_seek, provide_preference, reject_and_refine, accept; system actions ask_preference, recommend, compare, farewell; at least 1 ask_preference and exactly `rejections` reject_and_refine turns; recommend at least 3 distinct candidate POIs with at least 1 compare of two POIs; system responses MUST include EXACT verbatim review quotes (substrings allowed, NO paraphrasing) as "quote" [Rn], where Rn is the n-th id of that turn's referenced_review_ids; only candidate POIs and their reviews may be referenced."""

    scenario: str = dspy.InputField(desc="persona, travel context, city, POI type, difficulty, rejections")
    candidates: str = dspy.InputField(desc="JSON list of the 8 candidate POIs with their review ids and texts")
    turns: list[dict[str, Any]] = dspy.OutputField(
        desc="JSON list of turns {turn_id, role, text, action, referenced_poi_ids, referenced_review_ids}")
    multi_reference: dict[str, list[str]] = dspy.OutputField(
        desc="for each recommend/compare turn_id, the other candidate ids that also satisfy the stated preferences")


class DialogueGenerator(dspy.Module):
    """One LLM call per attempt: :class:`GenerateDialogue` with ``dspy.Predict``."""

    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict(GenerateDialogue)

    def forward(self, scenario: str, candidates: str, attempt: int = 0) -> dspy.Prediction:
        return self.generate(scenario=scenario, candidates=candidates, config={"rollout_id": attempt})


def _citations(text: str, review_ids: list[str], kb: KB) -> tuple[str, list[dict[str, Any]]]:
    """Parse ``"quote" [Rn]`` spans; locate each in review ``review_ids[n-1]`` (exact, else
    the best partial alignment, snapped into the text when its ratio is ≥ 0.80)."""
    citations = []
    for quote, label in _CITE.findall(text):
        k = int(label[1:]) - 1
        rid = review_ids[k] if 0 <= k < len(review_ids) else ""
        review = kb.reviews.get(rid)
        start, end = -1, -1
        if review is not None:
            start = review.text.find(quote)
            if start >= 0:
                end = start + len(quote)
            else:
                aln = fuzz.partial_ratio_alignment(quote, review.text)
                if len(quote) <= len(review.text) and aln is not None and aln.score >= FUZZY_THRESHOLD \
                        and aln.dest_end > aln.dest_start:
                    start, end = aln.dest_start, aln.dest_end
                    exact = review.text[start:end]
                    text = text.replace(f'"{quote}" [{label}]', f'"{exact}" [{label}]', 1)
                    quote = exact
                else:
                    start, end = 0, len(quote)
        citations.append({"label": label, "review_id": rid, "quote": quote, "start": max(start, 0), "end": max(end, 1)})
    return text, citations


def to_dialogue(pred: dspy.Prediction, base: dict[str, Any], kb: KB) -> dict[str, Any]:
    """Assemble a dialogue record from a prediction and the scenario/pool fields ``base``."""
    turns = []
    for raw in pred.turns:
        if not isinstance(raw, dict):
            raise ValueError(f"turn is not an object: {raw!r:.80}")
        text, citations = _citations(str(raw.get("text", "")), list(raw.get("referenced_review_ids") or []), kb)
        turn = {"turn_id": raw.get("turn_id"), "role": raw.get("role"), "action": raw.get("action"), "text": text,
                "referenced_poi_ids": list(raw.get("referenced_poi_ids") or []),
                "referenced_review_ids": list(raw.get("referenced_review_ids") or []), "citations": citations}
        if turn["action"] in REC_ACTIONS:
            turn["gold_poi_ids"] = list(turn["referenced_poi_ids"])
            alts = (pred.multi_reference or {}).get(str(turn["turn_id"]), [])
            turn["acceptable_alternative_poi_ids"] = [b for b in alts if b not in turn["gold_poi_ids"]]
        turns.append(turn)
    return {**base, "turns": turns}


def _inputs(kb: KB, base: dict[str, Any], rejections: int) -> tuple[str, str]:
    sc = base["scenario"]
    scenario = (f"persona: {sc['persona']} ({sc['persona_type']}); context: {sc['context']}; city: {sc['city']}; "
                f"POI type: {sc['poi_type']}; difficulty: {sc['difficulty']}; rejections: {rejections}")
    cands = [{"business_id": b, "name": kb.pois[b].name, "stars": kb.pois[b].stars, "price": kb.pois[b].price,
              "categories": kb.pois[b].categories,
              "reviews": [{"review_id": r.review_id, "text": r.text} for r in kb.reviews_of(b)[:REVIEWS_PER_CANDIDATE]]}
             for b in base["candidate_poi_ids"]]
    return scenario, json.dumps(cands, ensure_ascii=False)


def generate_one(program: DialogueGenerator, kb: KB, base: dict[str, Any], rejections: int,
                 max_retries: int) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Up to ``1 + max_retries`` attempts; ``(dialogue or None, attempt log)``."""
    scenario, candidates = _inputs(kb, base, rejections)
    reasons: list[list[str]] = []
    for attempt in range(max_retries + 1):
        try:
            d = to_dialogue(program(scenario=scenario, candidates=candidates, attempt=attempt), base, kb)
            fails = [f"{r}: {x}" if x else r for r, x in dialogue_failures(d, kb)]
            n_rej = sum(t.get("action") == "reject_and_refine" for t in d["turns"])
            if n_rej != rejections:
                fails.append(f"rejections: {n_rej} != {rejections}")
        except Exception as exc:  # noqa: BLE001 — adapter parse errors, malformed turns: recorded, then retried
            d, fails = None, [f"parse: {type(exc).__name__}: {str(exc)[:160]}"]
        if not fails:
            d["metadata"]["retries"] = attempt
            return d, {"dialogue_id": base["dialogue_id"], "tier": base["scenario"]["difficulty"], "retries": attempt}
        reasons.append(fails)
    return None, {"dialogue_id": base["dialogue_id"], "tier": base["scenario"]["difficulty"],
                  "retries": max_retries, "failed": True, "reasons": reasons}


def generate_llm(kb: KB, n: int, model: str, seed: int = 42, max_retries: int = 2, api_base: str | None = None,
                 progress: bool = False, lm: dspy.BaseLM | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``n`` scenarios (same cycle, tiers and pools as the simulator) generated by ``model``;
    returns ``(accepted dialogues with splits, failure records)``."""
    if n < 1:
        raise ValueError(f"--n must be positive, got {n}")
    lm = lm or dspy.LM(model, api_base=api_base, cache=False)
    cities, program = kb.cities(), DialogueGenerator()
    tiers = allocate_tiers(n, np.random.default_rng([seed, 1]))
    accepted, failures = [], []
    with dspy.context(lm=lm):
        for i in tqdm(range(n), desc="llm dialogues", disable=not progress, unit="dlg"):
            rng = np.random.default_rng([seed, 2, i])
            persona_type, city, poi_type = scenario_cycle(i, cities)
            persona = sample_persona(persona_type, rng)
            _, cands = sample_candidates(kb, city, poi_type, rng)
            open_ids = open_set(kb, city, poi_type)
            base = {"dialogue_id": dialogue_id(i),
                    "scenario": {"persona_type": persona_type, "persona": persona.text, "context": persona.context,
                                 "city": city, "poi_type": poi_type, "difficulty": tiers[i],
                                 "hidden_preferences": {"style": None, "price_max": None, "noise": None,
                                                        "ambience": [], "features": [], "anchor": None}},
                    "candidate_poi_ids": cands, "expanded_pool_poi_ids": expanded_pools(open_ids, cands, rng),
                    "open_set_poi_ids": open_ids, "split": "train",
                    "metadata": {"generator": "llm", "model": model, "seed": seed, "kb_sha256": kb.sha256, "retries": 0}}
            rejections = max(TIER_SPECS[tiers[i]].rejections)
            d, log = generate_one(program, kb, base, rejections, max_retries)
            (accepted.append(d) if d is not None else failures.append(log))
    assign_splits(accepted, seed)
    return accepted, failures
