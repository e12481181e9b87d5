"""The live loop (TravelBench's multi-turn evaluation, seed 003 §3): a baseline converses with the simulated user instead of
answering a replayed reference conversation.

At each system turn the baseline gets a :class:`~trace_crs.baselines.base.TurnContext` built from
the *live* history (redacted as in replay: user turns as text only), the dialogue's candidate
pool (shuffled as the runner shuffles it, :func:`trace_crs.runner.tasks.shuffled_pool`) and the
KB — never the profile.  Its answer becomes a ``recommend`` turn naming its top-1 POI, or an
``abstain`` turn when it declines (TravelBench's ``[Unsolved]`` marker,
:func:`trace_crs.metrics.abstention.abstains`, or an empty ranking), or an ``ask_preference``
turn when it asks a question (the ``[Ask]`` marker, :mod:`trace_crs.live.ask`).  A failing ``predict`` is
replaced by the Popularity fallback, as in replay (Appendix F).

Each live transcript is a dialogue-schema record, so the replay metrics score it unchanged: a
``recommend`` turn's ``gold_poi_ids`` is the candidate the user would accept that the system
ranked highest (so Hit@1 = "the user accepted", MRR = 1 / rank of the first acceptable
candidate) and ``acceptable_alternative_poi_ids`` the other acceptable candidates; the
transcript keeps the citations whose quote is verbatim in the review (with offsets), the
prediction row keeps them all.  The outcome row counts turns: TSR, T2R and rejection recovery
over the system turns (an abstention or a question counts as a turn that did not succeed), with the
:mod:`trace_crs.metrics.dialogue` definitions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

from trace_crs import DEFAULT_SEED
from trace_crs.baselines.base import BaselineOutput, TurnContext, redact_turn
from trace_crs.baselines.popularity import fallback_output
from trace_crs.dialogues.schema import ABSTAIN_ACTION
from trace_crs.kb.store import KB
from trace_crs.live.ask import ASK_ACTION, asks
from trace_crs.live.simulator import SimConfig, TemplateUser
from trace_crs.metrics import dialogue as dlg
from trace_crs.metrics.abstention import abstains
from trace_crs.metrics.predictions import cited_labels
from trace_crs.metrics.recommendation import dedup, recommended
from trace_crs.runner.tasks import shuffled_pool


def output_action(out: BaselineOutput) -> str:
    """``ask_preference`` when the answer asks (the ``[Ask]`` marker, :mod:`trace_crs.live.ask`),
    ``abstain`` when it declines (``[Unsolved]`` or no ranking), else ``recommend``."""
    if asks(out.text):
        return ASK_ACTION
    return ABSTAIN_ACTION if abstains(out.text) or not out.ranked_poi_ids else "recommend"


def system_turn(out: BaselineOutput, ctx: TurnContext, user: TemplateUser) -> dict[str, Any]:
    """The transcript turn of one baseline answer (see the module docstring for gold)."""
    action = output_action(out)
    turn: dict[str, Any] = {
        "turn_id": ctx.turn_id,
        "role": "system",
        "action": action,
        "text": out.text,
        "referenced_poi_ids": [],
        "referenced_review_ids": [],
        "citations": [],
    }
    if action in (ABSTAIN_ACTION, ASK_ACTION):
        return turn
    shown = recommended(out.ranked_poi_ids, 1)
    verbatim = []
    for c in out.citations:
        review = ctx.kb.reviews.get(str(c.get("review_id")))
        start = review.text.find(c.get("quote") or "\0") if review is not None and c.get("quote") else -1
        if start >= 0:
            verbatim.append(
                {
                    "label": c["label"],
                    "review_id": c["review_id"],
                    "quote": c["quote"],
                    "start": start,
                    "end": start + len(c["quote"]),
                }
            )
    order = dedup([*out.ranked_poi_ids, *ctx.candidates])
    acceptable = [p for p in order if p in set(ctx.candidates) and user.satisfied_by(p)]
    turn.update(
        referenced_poi_ids=shown,
        citations=verbatim,
        referenced_review_ids=list(dict.fromkeys(c["review_id"] for c in verbatim)),
        gold_poi_ids=acceptable[:1],
        acceptable_alternative_poi_ids=acceptable[1:],
    )
    return turn


def _predict(baseline: Any, ctx: TurnContext) -> BaselineOutput:
    try:
        return baseline.predict(ctx)
    except Exception as exc:
        return fallback_output(ctx, f"{type(exc).__name__}: {exc}")


class Conversation:
    """One live conversation in progress: the user, the turns so far and what they scored."""

    def __init__(
        self, name: str, dialogue: Mapping[str, Any], kb: KB, seed: int, cfg: SimConfig, pool: str, user_lm: Any = None
    ) -> None:
        self.name, self.dialogue, self.kb, self.seed, self.cfg, self.pool = name, dialogue, kb, seed, cfg, pool
        self.candidates = shuffled_pool(dict(dialogue), pool, seed)
        if user_lm is None:
            self.user = TemplateUser(dialogue, kb, seed, cfg)
        else:
            from trace_crs.live.llm_user import LLMUser

            self.user = LLMUser(dialogue, kb, seed, cfg, lm=user_lm)
        self.turns: list[dict[str, Any]] = [{"turn_id": 1, **self.user.open()}]
        self.preds: list[dict[str, Any]] = []
        self.hits: list[float] = []
        self.fallbacks = 0

    def context(self) -> TurnContext:
        """What the system sees at its next turn: the live history, redacted as in replay."""
        scen = self.dialogue["scenario"]
        return TurnContext(
            dialogue_id=str(self.dialogue["dialogue_id"]),
            turn_id=len(self.turns) + 1,
            turn_index=len(self.turns),
            action="recommend",
            history=tuple(redact_turn(t) for t in self.turns),
            city=str(scen["city"]),
            poi_type=str(scen["poi_type"]),
            persona_type=str(scen.get("persona_type") or ""),
            candidates=self.candidates,
            kb=self.kb,
            pool=self.pool,
        )

    def step(self, ctx: TurnContext, out: BaselineOutput) -> None:
        """Append the system's answer and the user's reply."""
        self.fallbacks += bool(out.usage.fallback)
        sys_turn = system_turn(out, ctx, self.user)
        self.turns.append(sys_turn)
        if sys_turn["action"] not in (ABSTAIN_ACTION, ASK_ACTION):
            self.preds.append(
                {
                    "dialogue_id": ctx.dialogue_id,
                    "turn_id": ctx.turn_id,
                    "ranked_poi_ids": [str(p) for p in out.ranked_poi_ids],
                    "text": out.text,
                    "citations": cited_labels(out.citations),  # two quotes of one review: one citation
                }
            )
        reply = self.user.respond(sys_turn, len(self.turns))
        self.turns.append({"turn_id": len(self.turns) + 1, **reply})
        self.hits.append(float(reply["action"] == "accept"))

    def result(self) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
        """``(transcript, outcome row, prediction rows)`` of the finished conversation."""
        d = self.dialogue
        transcript = {
            **{
                k: d[k]
                for k in (
                    "dialogue_id",
                    "scenario",
                    "candidate_poi_ids",
                    "expanded_pool_poi_ids",
                    "open_set_poi_ids",
                    "split",
                )
            },
            "turns": self.turns,
            "metadata": {
                **d["metadata"],
                "generator": "simulated",
                "live": {
                    "baseline": self.name,
                    "pool": self.pool,
                    "seed": self.seed,
                    "max_turns": self.cfg.max_turns,
                    "opening_prefs": self.cfg.opening_prefs,
                    "simulator": type(self.user).__name__,
                },
            },
        }
        return transcript, outcome(self.name, transcript, self.hits, self.user, self.fallbacks), self.preds


def converse_many(
    baseline: Any,
    name: str,
    dialogues: Sequence[Mapping[str, Any]],
    kb: KB,
    seed: int = DEFAULT_SEED,
    cfg: SimConfig = SimConfig(),
    pool: str = "closed",
    user_lm: Any = None,
    concurrency: int = 1,
) -> list[tuple[dict, dict, list[dict]]]:
    """Run the conversations in lockstep — round k asks the system for the k-th turn of every
    conversation still open — so a baseline's ``warm`` hook (Dense: one batch of query
    embeddings) serves a whole round, as it serves a chunk in replay.  With ``user_lm`` the
    user is :class:`~trace_crs.live.llm_user.LLMUser` (its sentences rewritten by that LM).
    ``concurrency`` > 1 asks the system for a round's turns that many at a time (an LLM baseline:
    one request per local server); the users answer in conversation order, so the transcripts
    are those of one at a time.  Conversation ``i`` is always asked from thread ``i % concurrency``:
    a local server is bound to its calling thread, so each conversation stays on one server, whose
    KV cache still holds its earlier turns (:mod:`trace_crs.lm.kv_stash`)."""
    live = [Conversation(name, d, kb, seed, cfg, pool, user_lm) for d in dialogues]
    warm = getattr(baseline, "warm", None)
    with ExitStack() as stack:
        lanes = [
            stack.enter_context(ThreadPoolExecutor(max_workers=1)) for _ in range(concurrency if concurrency > 1 else 0)
        ]
        while open_ := [(i, c) for i, c in enumerate(live) if not c.user.done]:
            contexts = [c.context() for _, c in open_]
            if warm is not None:
                warm(contexts)
            if lanes:
                futures = [
                    lanes[i % len(lanes)].submit(_predict, baseline, ctx)
                    for (i, _), ctx in zip(open_, contexts, strict=True)
                ]
                outputs = [f.result() for f in futures]
            else:
                outputs = [_predict(baseline, ctx) for ctx in contexts]
            for (_, conv), ctx, output in zip(open_, contexts, outputs, strict=True):
                conv.step(ctx, output)
    return [c.result() for c in live]


def converse(
    baseline: Any,
    name: str,
    dialogue: Mapping[str, Any],
    kb: KB,
    seed: int = DEFAULT_SEED,
    cfg: SimConfig = SimConfig(),
    pool: str = "closed",
    user_lm: Any = None,
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Run one live conversation: ``(transcript, outcome row, prediction rows)``."""
    return converse_many(baseline, name, [dialogue], kb, seed, cfg, pool, user_lm)[0]


def outcome(
    name: str, transcript: Mapping[str, Any], hits: list[float], user: TemplateUser, fallbacks: int
) -> dict[str, Any]:
    """One row per live conversation: TSR, T2R, recovery (metrics.dialogue) and counts."""
    turns = transcript["turns"]
    system = [t for t in turns if t["role"] == "system"]
    hit_by_turn = {t["turn_id"]: h for t, h in zip(system, hits, strict=False)}
    recovery = dlg.recovery_turns(turns)
    success = dlg.task_success(hits)
    return {
        "dialogue_id": transcript["dialogue_id"],
        "baseline": name,
        "difficulty": transcript["scenario"].get("difficulty"),
        "poi_type": transcript["scenario"]["poi_type"],
        "n_profile": len(user.profile),
        "n_system_turns": len(system),
        "n_abstentions": sum(t["action"] == ABSTAIN_ACTION for t in system),
        "n_questions": sum(t["action"] == ASK_ACTION for t in system),
        "n_rejections": sum(t["action"] == "reject_and_refine" for t in turns),
        "accepted_poi_id": user.accepted or "",
        "tsr": success,
        "t2r": dlg.turns_to_first_hit(hits),
        "turns_to_success": dlg.turns_to_first_hit(hits) if success else float("nan"),
        "rejection_recovery": dlg.rejection_recovery(hit_by_turn, recovery),
        "recovery_hits": int(sum(hit_by_turn[t] for t in recovery)),
        "recovery_episodes": len(recovery),
        "n_fallbacks": fallbacks,
    }
