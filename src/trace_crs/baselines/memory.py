"""MemoryAugmentedBaseline (paper Appendix F, §4): a persistent cross-session PreferenceMemory.

Memory entries are user preference statements ``(persona_type, dialogue_id, text, t)``.

Order-independent definition (ARCHITECTURE §4: records do not depend on concurrency or order): the evaluated dialogues are sessions in *corpus
order* (the order of the run's dialogue file / seeded subset); session ``k`` (0-based)
happens at ``t_k = t_0 + k · session_gap_h`` hours, ``t_0 = 0`` (after a loaded memory: one
gap after its latest entry).  Session ``k`` writes the user turns the system saw before its
last recommend/compare turn.  **The memory visible to dialogue ``i`` is the loaded memory
plus what sessions ``0 … i−1`` wrote** — entries with ``t < t_i`` — whatever order, worker or
concurrency the turns are evaluated in.  The runner hands the baseline the whole corpus
first (:meth:`MemoryAugmentedBaseline.see_corpus`); used turn by turn without it, sessions
are numbered in order of first sight and write their user turns after each predicted turn
(the same memory when turns come in corpus order).  For a turn of dialogue ``d`` at time
``t_now`` the visible memories of the *same persona type* from *other* dialogues are scored

    score(m) = cos(q, e_m) · exp(−λ (t_now − t_m)),   λ = ln 2 / 168 h   (half-life one week)

with ``q`` the MiniLM embedding of the current user turns (``lm.embeddings.embed``); the
top ``top_k`` with a positive score are shown to the LLM as remembered preferences, then
ranking and reply are LLM Zero-Shot's.  Not session-isolated (reported separately): a
dialogue's results depend on the dialogues before it in corpus order.  ``memory_path``
persists the memory as JSON lines across processes (loaded in ``prepare``, written in
``close``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dspy
import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.llm_common import LLMBaseline
from trace_crs.baselines.llm_zero_shot import ZeroShotModule
from trace_crs.kb import KB
from trace_crs.kb.store import dump_jsonl, iter_jsonl
from trace_crs.lm.embeddings import embed

HALF_LIFE_H = 168.0
DECAY = math.log(2) / HALF_LIFE_H


@dataclass
class MemoryItem:
    persona_type: str
    dialogue_id: str
    text: str
    t_hours: float


class PreferenceMemory:
    """Persona-keyed preference statements with cosine × exponential-time-decay retrieval."""

    def __init__(self, items: list[MemoryItem] | None = None) -> None:
        self.items: list[MemoryItem] = []
        self._vecs: list[np.ndarray] = []
        self._keys: set[tuple[str, str]] = set()
        self._groups: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._lock = threading.RLock()  # concurrent turns (runner.llm_pool) read while others add
        self.add_many(items or [])

    def add(self, item: MemoryItem) -> bool:
        """Store ``item`` unless the same (dialogue, text) is already stored."""
        return self.add_many([item]) == 1

    def add_many(self, items: Sequence[MemoryItem]) -> int:
        """Store the new ``items`` (one batched embedding); returns how many were new."""
        with self._lock:
            new = []
            for item in items:
                key = (item.dialogue_id, item.text)
                if key not in self._keys:
                    self._keys.add(key)
                    new.append(item)
            if new:
                self._vecs.extend(embed([m.text for m in new]))
                self.items.extend(new)
                self._groups.clear()
            return len(new)

    def _group(self, persona_type: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(item index, vectors, t_hours, dialogue ids)`` of one persona type."""
        with self._lock:
            if persona_type not in self._groups:
                idx = np.array([i for i, m in enumerate(self.items) if m.persona_type == persona_type], dtype=int)
                vecs = np.stack([self._vecs[i] for i in idx]) if len(idx) else np.zeros((0, 1))
                self._groups[persona_type] = (
                    idx,
                    vecs,
                    np.array([self.items[i].t_hours for i in idx]),
                    np.array([self.items[i].dialogue_id for i in idx], dtype=object),
                )
            return self._groups[persona_type]

    def retrieve(
        self, persona_type: str, dialogue_id: str, query: str, t_now: float, top_k: int = 3, before: float | None = None
    ) -> list[tuple[float, MemoryItem]]:
        """Top-``top_k`` ``(score, item)`` of the same persona from other dialogues, score > 0,
        by descending score (ties: insertion order); ``before``: only items with ``t < before``."""
        idx, vecs, times, dids = self._group(persona_type)
        keep = dids != dialogue_id
        if before is not None:
            keep &= times < before
        if not keep.any() or not query.strip():
            return []
        with self._lock:
            q = np.asarray(embed([query])[0])
        scores = (vecs[keep] @ q) * np.exp(-DECAY * (t_now - times[keep]))
        order = np.argsort(-scores, kind="stable")[:top_k]
        return [(float(scores[j]), self.items[int(idx[keep][j])]) for j in order if scores[j] > 0]

    def dump(self, path: str | Path) -> None:
        dump_jsonl(
            (
                {"persona_type": m.persona_type, "dialogue_id": m.dialogue_id, "text": m.text, "t_hours": m.t_hours}
                for m in self.items
            ),
            path,
        )

    @classmethod
    def load(cls, path: str | Path) -> PreferenceMemory:
        items = []
        for line, rec in iter_jsonl(path):
            try:
                items.append(
                    MemoryItem(
                        str(rec["persona_type"]), str(rec["dialogue_id"]), str(rec["text"]), float(rec["t_hours"])
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{line}: bad memory record ({exc})") from None
        return cls(items)


class MemoryZeroShotModule(ZeroShotModule):
    """Zero-Shot with retrieved cross-session memories appended to the conversation."""

    def __init__(self, owner: MemoryAugmentedBaseline) -> None:
        super().__init__("tfidf")
        self.owner = owner

    def notes(self, ctx: TurnContext, shown: list[str]) -> str:
        t_now = self.owner.clock(ctx)
        hits = self.owner.memory.retrieve(
            ctx.persona_type, ctx.dialogue_id, " ".join(ctx.user_texts), t_now, self.owner.top_k, before=t_now
        )
        if not hits:
            return ""
        return "Remembered preferences of this traveler type from earlier trips:\n" + "\n".join(
            f"- {m.text}" for _, m in hits
        )


class MemoryAugmentedBaseline(LLMBaseline, key="memory"):
    """Cross-session preference memory (168 h half-life); not session-isolated."""

    def __init__(
        self,
        lm_config: Any = None,
        lm: dspy.LM | None = None,
        seed: int = DEFAULT_SEED,
        memory_path: str | Path | None = None,
        session_gap_h: float = 24.0,
        top_k: int = 3,
    ) -> None:
        self.memory_path = Path(memory_path) if memory_path else None
        self.session_gap_h, self.top_k = session_gap_h, top_k
        self.memory = PreferenceMemory()
        self._sessions: dict[str, float] = {}
        self._t0 = 0.0
        self._clock_lock = threading.Lock()
        super().__init__(lm_config, lm, seed)

    def build_module(self) -> dspy.Module:
        return MemoryZeroShotModule(self)

    def clock(self, ctx: TurnContext) -> float:
        """Session time (hours) of ``ctx``'s dialogue: ``t_0 + k · session_gap_h`` for the
        ``k``-th session (corpus order after :meth:`see_corpus`, else order of first sight)."""
        did = ctx.dialogue_id
        with self._clock_lock:
            if did not in self._sessions:
                if not self._sessions:
                    self._t0 = max([0.0] + [m.t_hours + self.session_gap_h for m in self.memory.items])
                self._sessions[did] = self._t0 + len(self._sessions) * self.session_gap_h
            return self._sessions[did]

    def see_corpus(self, contexts: Sequence[TurnContext]) -> None:
        """Fix the memory before any turn is predicted: ``contexts`` are every turn of the run
        in corpus order; each dialogue is a session at :meth:`clock` and writes its user turns."""
        for ctx in contexts:
            self.clock(ctx)
        self.memory.add_many(
            [
                MemoryItem(ctx.persona_type, ctx.dialogue_id, text, self._sessions[ctx.dialogue_id])
                for ctx in contexts
                for text in ctx.user_texts
            ]
        )

    def warm(self, contexts: Sequence[TurnContext]) -> None:
        """Before turns are asked at once (a live round, a runner chunk): :meth:`see_corpus` for
        them — sessions numbered and their user turns written in the order given — so what a
        turn retrieves does not depend on which thread asks first.  The same memory a turn sees
        when the turns are asked one by one in that order: another session's turns are visible
        only to later sessions (``t < t_now``), never to their own."""
        self.see_corpus(contexts)

    def prepare(self, kb: KB) -> None:
        if self.memory_path is not None and self.memory_path.exists():
            self.memory = PreferenceMemory.load(self.memory_path)
        super().prepare(kb)

    def close(self) -> None:
        if self.memory_path is not None:
            self.memory.dump(self.memory_path)
        super().close()

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        """Predict with the memory visible at this session's time, then write its user turns
        (already there after :meth:`see_corpus`)."""
        t_now = self.clock(ctx)
        out = super().predict(ctx)
        self.memory.add_many([MemoryItem(ctx.persona_type, ctx.dialogue_id, text, t_now) for text in ctx.user_texts])
        return out
