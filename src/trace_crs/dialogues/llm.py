"""Generator A, the LLM dialogue generator (paper §2.2, Appendix G prompt V2): one DSPy
Signature (its V2 rules in ``prompts/generate_dialogue.yaml``), one Module, a conversion of the model's
JSON turns into the dialogue schema (:mod:`llm_turns`: citations parsed from ``"quote" [Rn]``, located in the
cited review and snapped to the exact span when the rapidfuzz partial ratio is ≥ 0.80),
validation (:mod:`validate`) and a retry policy (retries counted, failures recorded).

Two prompt versions (``PROMPTS``): ``v2`` shows 5 full reviews per candidate and labels a
quote by the n-th id of the turn's ``referenced_review_ids``; ``v2-compact`` (for small local
models) shows candidates labelled ``P1``…``P8`` with 2 excerpts each, cut to ≤ 160 characters
and labelled ``R1``…``R16``, plus a worked example (``llm_schema.demo``, with the scenario's
number of rejections) and a suggested action sequence in the scenario; the model names
POIs and reviews by these labels (in id lists and after quotes), which are mapped back to ids,
quote labels renumbered ``R1, R2, …`` per turn as the simulator writes them.  Two decodings
(``DECODINGS``): ``free`` (DSPy's chat adapter) and ``constrained`` (JSON adapter plus a
per-dialogue JSON-Schema grammar, :mod:`llm_schema`; llama.cpp servers only).  Both are written
to ``metadata.prompt_version`` / ``metadata.generator_mode``; validation is the same for all.

Runs against any litellm model string; DSPy is never configured at import — the LM is passed
in and used through ``dspy.context``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dspy
import numpy as np
from tqdm import tqdm

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.constraints import empty_preferences
from trace_crs.dialogues.llm_schema import SchemaJSONAdapter, demo, output_schema, response_format, suggested_actions
from trace_crs.dialogues.llm_turns import to_dialogue
from trace_crs.dialogues.personas import sample_persona, scenario_cycle
from trace_crs.dialogues.pools import expanded_pools, open_set, sample_candidates
from trace_crs.dialogues.simulator import dialogue_id, scenario_record
from trace_crs.dialogues.splits import assign_splits
from trace_crs.dialogues.tiers import TIER_SPECS, allocate_tiers
from trace_crs.dialogues.validate import dialogue_failures
from trace_crs.kb.store import KB
from trace_crs.prompts import signature

PROMPT_VERSION = "v2"
REVIEWS_PER_CANDIDATE = 5
DECODINGS: tuple[str, ...] = ("free", "constrained")
# Decoding defaults of the local llama.cpp generator (LMConfig fields; `--set lm.<field>=...`):
# a whole dialogue is ~0.7-1.5k tokens after a ~3k-token prompt, i.e. minutes on one thread;
# a low temperature keeps a 1.5B model close to the worked example, seed + attempt varies retries.
LOCAL_LM: dict[str, Any] = {
    "max_tokens": 2048,
    "timeout_s": 1800.0,
    "n_ctx": 6144,
    "temperature": 0.2,
    "mode": "generative",
}


GenerateDialogue = signature("generate_dialogue", __name__)
GenerateDialogueCompact = signature("generate_dialogue_compact", __name__)


@dataclass(frozen=True)
class PromptSpec:
    """One prompt version: its signature and how candidates' reviews are shown."""

    version: str
    signature: type[dspy.Signature]
    reviews_per_candidate: int
    excerpt_chars: int | None  # None: full review text
    labelled: bool  # candidates/excerpts carry labels P1../R1.. used instead of ids
    demo: bool = False  # show llm_schema.demo(rejections) (inputs + outputs) before the task
    suggest_actions: bool = False  # the scenario suggests an action sequence (llm_schema.suggested_actions)


PROMPTS: dict[str, PromptSpec] = {
    "v2": PromptSpec("v2", GenerateDialogue, REVIEWS_PER_CANDIDATE, None, False),
    "v2-compact": PromptSpec("v2-compact", GenerateDialogueCompact, 2, 160, True, True, True),
}


class DialogueGenerator(dspy.Module):
    """One LLM call per attempt: the prompt's signature with ``dspy.Predict``."""

    def __init__(self, prompt: str = PROMPT_VERSION) -> None:
        super().__init__()
        self.generate = dspy.Predict(PROMPTS[prompt].signature)

    def forward(
        self, scenario: str, candidates: str, attempt: int = 0, demos: list[dict[str, Any]] | None = None, **config: Any
    ) -> dspy.Prediction:
        return self.generate(
            scenario=scenario,
            candidates=candidates,
            demos=[dspy.Example(**x) for x in demos or []],
            config={"rollout_id": attempt, **config},
        )


def excerpt(text: str, chars: int | None) -> str:
    """A prefix of ``text`` of at most ``chars`` characters (so still a verbatim substring),
    cut after its last full sentence, else at its last space, when that lies in its second half."""
    if chars is None or len(text) <= chars:
        return text
    cut = text[: chars + 1]
    for end in (max(cut.rfind(p) for p in (". ", "! ", "? ")) + 1, cut.rfind(" ")):
        if end > chars // 2:
            return cut[:end].rstrip()
    return text[:chars]


@dataclass(frozen=True)
class Inputs:
    """One scenario's prompt inputs plus what conversion and constrained decoding need."""

    scenario: str
    candidates: str
    labels: dict[str, str] | None  # labelled prompts: P1..P8 -> POI id, R1.. -> review id
    poi_handles: list[str]  # how the model names the candidates (labels, else ids)
    review_handles: list[str]  # ... and the reviews shown
    demos: list[dict[str, Any]]  # worked examples for this scenario


def _inputs(kb: KB, base: dict[str, Any], rejections: int, prompt: str = PROMPT_VERSION) -> Inputs:
    spec = PROMPTS[prompt]
    sc = base["scenario"]
    scenario = (
        f"persona: {sc['persona']} ({sc['persona_type']}); context: {sc['context']}; city: {sc['city']}; "
        f"POI type: {sc['poi_type']}; difficulty: {sc['difficulty']}; rejections: {rejections}"
    )
    if spec.suggest_actions:
        scenario += f"; suggested actions: {suggested_actions(rejections)}"
    pois: dict[str, str]
    reviews: dict[str, str]
    cands, pois, reviews = [], {}, {}
    for b in base["candidate_poi_ids"]:
        poi, shown = kb.pois[b], []
        for r in kb.reviews_of(b)[: spec.reviews_per_candidate]:
            reviews[f"R{len(reviews) + 1}"] = r.review_id
            text = excerpt(r.text, spec.excerpt_chars)
            shown.append(
                {"label": f"R{len(reviews)}", "text": text}
                if spec.labelled
                else {"review_id": r.review_id, "text": text}
            )
        pois[f"P{len(pois) + 1}"] = b
        head = {"label": f"P{len(pois)}"} if spec.labelled else {"business_id": b}
        cands.append(
            {
                **head,
                "name": poi.name,
                "stars": poi.stars,
                "price": poi.price,
                "categories": poi.categories,
                "reviews": shown,
            }
        )
    handles = (lambda table: list(table)) if spec.labelled else (lambda table: list(table.values()))
    return Inputs(
        scenario,
        json.dumps(cands, ensure_ascii=False),
        {**pois, **reviews} if spec.labelled else None,
        handles(pois),
        handles(reviews),
        [demo(rejections)] if spec.demo else [],
    )


def generate_one(
    program: DialogueGenerator,
    kb: KB,
    base: dict[str, Any],
    rejections: int,
    max_retries: int,
    prompt: str = PROMPT_VERSION,
    decoding: str = "free",
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Up to ``1 + max_retries`` attempts; ``(dialogue or None, attempt log)``.  Attempt ``k``
    is its own request (``rollout_id`` k and, when the LM has a ``seed``, seed + k); with
    ``decoding="constrained"`` it carries the dialogue's JSON-Schema ``response_format``."""
    if decoding not in DECODINGS:
        raise ValueError(f"decoding: expected one of {DECODINGS}, got {decoding!r}")
    inp = _inputs(kb, base, rejections, prompt)
    config: dict[str, Any] = {}
    if decoding == "constrained":
        config["response_format"] = response_format(output_schema(inp.poi_handles, inp.review_handles))
    lm_seed = getattr(dspy.settings.lm, "kwargs", {}).get("seed")
    reasons: list[list[str]] = []
    for attempt in range(max_retries + 1):
        if lm_seed is not None:
            config["seed"] = lm_seed + attempt
        try:
            pred = program(scenario=inp.scenario, candidates=inp.candidates, attempt=attempt, demos=inp.demos, **config)
            d = to_dialogue(pred, base, kb, inp.labels)
            fails = [f"{r}: {x}" if x else r for r, x in dialogue_failures(d, kb)]
            n_rej = sum(t.get("action") == "reject_and_refine" for t in d["turns"])
            if n_rej != rejections:
                fails.append(f"rejections: {n_rej} != {rejections}")
        except Exception as exc:
            d, fails = None, [f"parse: {type(exc).__name__}: {str(exc)[:160]}"]
        if not fails and d is not None:  # d is None only with a parse failure
            d["metadata"]["retries"] = attempt
            log = {"dialogue_id": base["dialogue_id"], "tier": base["scenario"]["difficulty"], "retries": attempt}
            return d, ({**log, "reasons": reasons} if reasons else log)
        reasons.append(fails)
    return None, {
        "dialogue_id": base["dialogue_id"],
        "tier": base["scenario"]["difficulty"],
        "retries": max_retries,
        "failed": True,
        "reasons": reasons,
    }


def generate_llm(
    kb: KB,
    n: int,
    model: str,
    seed: int = DEFAULT_SEED,
    max_retries: int = 2,
    api_base: str | None = None,
    progress: bool = False,
    lm: dspy.BaseLM | None = None,
    prompt: str = PROMPT_VERSION,
    decoding: str = "free",
    on_log: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``n`` scenarios (same cycle, tiers and pools as the simulator) generated by ``model``;
    returns ``(accepted dialogues with splits, failure records)``.  ``on_log`` receives every
    dialogue's attempt log (with its wall time ``seconds``) as soon as it is done."""
    if n < 1:
        raise ValueError(f"--n must be positive, got {n}")
    if prompt not in PROMPTS or decoding not in DECODINGS:
        raise ValueError(
            f"prompt/decoding: expected one of {sorted(PROMPTS)} / {DECODINGS}, " f"got {prompt!r} / {decoding!r}"
        )
    lm = lm or dspy.LM(model, api_base=api_base, cache=False)
    cities, program = kb.cities(), DialogueGenerator(prompt)
    tiers = allocate_tiers(n, np.random.default_rng([seed, 1]))
    accepted, failures = [], []
    adapter = SchemaJSONAdapter() if decoding == "constrained" else dspy.settings.adapter
    with dspy.context(lm=lm, adapter=adapter):
        for i in tqdm(range(n), desc="llm dialogues", disable=not progress, unit="dlg"):
            rng = np.random.default_rng([seed, 2, i])
            persona_type, city, poi_type = scenario_cycle(i, cities)
            persona = sample_persona(persona_type, rng)
            _, cands = sample_candidates(kb, city, poi_type, rng)
            open_ids = open_set(kb, city, poi_type)
            base = {
                "dialogue_id": dialogue_id(i),
                "scenario": scenario_record(persona_type, persona, city, poi_type, tiers[i], empty_preferences()),
                "candidate_poi_ids": cands,
                "expanded_pool_poi_ids": expanded_pools(open_ids, cands, rng),
                "open_set_poi_ids": open_ids,
                "split": "train",
                "metadata": {
                    "generator": "llm",
                    "model": model,
                    "seed": seed,
                    "kb_sha256": kb.sha256,
                    "retries": 0,
                    "prompt_version": prompt,
                    "generator_mode": decoding,
                },
            }
            rejections = max(TIER_SPECS[tiers[i]].rejections)
            t0 = time.monotonic()
            d, log = generate_one(program, kb, base, rejections, max_retries, prompt, decoding)
            log["seconds"] = round(time.monotonic() - t0, 1)
            (accepted.append(d) if d is not None else failures.append(log))
            if on_log is not None:
                on_log(log)
    assign_splits(accepted, seed)
    return accepted, failures
