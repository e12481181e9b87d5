"""MemoryAugmentedBaseline (paper Appendix F, §4): a persistent cross-session PreferenceMemory.

Memory entries are user preference statements ``(persona_type, dialogue_id, text, t)``.
Time is a deterministic session clock: the ``k``-th distinct dialogue this baseline sees
(0-based) happens at ``t = k · session_gap_h`` hours (after a loaded memory: one gap after
its latest entry, at the earliest).  For a turn of dialogue ``d`` at time
``t_now`` the memories of the *same persona type* from *other* dialogues are scored

    score(m) = cos(q, e_m) · exp(−λ (t_now − t_m)),   λ = ln 2 / 168 h   (half-life one week)

with ``q`` the MiniLM embedding of the current user turns (``lm.embeddings.embed``); the
top ``top_k`` with a positive score are shown to the LLM as remembered preferences, then
ranking and reply are LLM Zero-Shot's.  After each turn the dialogue's user turns are
written to memory.  Not session-isolated (reported separately): results depend on the
order in which dialogues are evaluated.  ``memory_path`` persists the memory as JSON lines
across processes (loaded in ``prepare``, written in ``close``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import dspy
import numpy as np

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
        for item in items or []:
            self.add(item)

    def add(self, item: MemoryItem) -> bool:
        """Store ``item`` unless the same (dialogue, text) is already stored."""
        key = (item.dialogue_id, item.text)
        if key in self._keys:
            return False
        self._keys.add(key)
        self.items.append(item)
        self._vecs.append(embed([item.text])[0])
        return True

    def retrieve(self, persona_type: str, dialogue_id: str, query: str, t_now: float,
                 top_k: int = 3) -> list[tuple[float, MemoryItem]]:
        """Top-``top_k`` ``(score, item)`` of the same persona from other dialogues, score > 0,
        by descending score (ties: insertion order)."""
        pool = [i for i, m in enumerate(self.items) if m.persona_type == persona_type and m.dialogue_id != dialogue_id]
        if not pool or not query.strip():
            return []
        q = embed([query])[0]
        scored = [(float(self._vecs[i] @ q) * math.exp(-DECAY * (t_now - self.items[i].t_hours)), i) for i in pool]
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [(s, self.items[i]) for s, i in scored[:top_k] if s > 0]

    def dump(self, path: str | Path) -> None:
        dump_jsonl(({"persona_type": m.persona_type, "dialogue_id": m.dialogue_id, "text": m.text,
                     "t_hours": m.t_hours} for m in self.items), path)

    @classmethod
    def load(cls, path: str | Path) -> "PreferenceMemory":
        items = []
        for line, rec in iter_jsonl(path):
            try:
                items.append(MemoryItem(str(rec["persona_type"]), str(rec["dialogue_id"]), str(rec["text"]),
                                        float(rec["t_hours"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{line}: bad memory record ({exc})") from None
        return cls(items)


class MemoryZeroShotModule(ZeroShotModule):
    """Zero-Shot with retrieved cross-session memories appended to the conversation."""

    def __init__(self, owner: "MemoryAugmentedBaseline") -> None:
        super().__init__("tfidf")
        self.owner = owner

    def notes(self, ctx: TurnContext, shown: list[str]) -> str:
        hits = self.owner.memory.retrieve(ctx.persona_type, ctx.dialogue_id,
                                          " ".join(ctx.user_texts), self.owner.clock(ctx), self.owner.top_k)
        if not hits:
            return ""
        return "Remembered preferences of this traveler type from earlier trips:\n" + "\n".join(
            f"- {m.text}" for _, m in hits)


class MemoryAugmentedBaseline(LLMBaseline):
    """Cross-session preference memory (168 h half-life); not session-isolated."""

    name: ClassVar[str] = "memory"
    display_name: ClassVar[str] = "Memory-Aug."

    def __init__(self, lm_config: Any = None, lm: dspy.LM | None = None, seed: int = 42,
                 memory_path: str | Path | None = None, session_gap_h: float = 24.0, top_k: int = 3) -> None:
        self.memory_path = Path(memory_path) if memory_path else None
        self.session_gap_h, self.top_k = session_gap_h, top_k
        self.memory = PreferenceMemory()
        self._sessions: dict[str, float] = {}
        super().__init__(lm_config, lm, seed)

    def build_module(self) -> dspy.Module:
        return MemoryZeroShotModule(self)

    def clock(self, ctx: TurnContext) -> float:
        """Session time (hours) of ``ctx``'s dialogue: order of first sight × ``session_gap_h``."""
        did = ctx.dialogue_id
        if did not in self._sessions:
            start = max((m.t_hours for m in self.memory.items), default=-self.session_gap_h)
            self._sessions[did] = max(start + self.session_gap_h, len(self._sessions) * self.session_gap_h)
        return self._sessions[did]

    def prepare(self, kb: KB) -> None:
        if self.memory_path is not None and self.memory_path.exists():
            self.memory = PreferenceMemory.load(self.memory_path)
        super().prepare(kb)

    def close(self) -> None:
        if self.memory_path is not None:
            self.memory.dump(self.memory_path)
        super().close()

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        t_now = self.clock(ctx)
        out = super().predict(ctx)
        for text in ctx.user_texts:
            self.memory.add(MemoryItem(ctx.persona_type, ctx.dialogue_id, text, t_now))
        return out
