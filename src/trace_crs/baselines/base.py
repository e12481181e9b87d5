"""The baseline interface (paper §4, Appendix F): one system turn in, a ranked list and a
cited response out.

A baseline sees the dialogue history *before* the system turn it must produce, the
candidate pool for that turn (closed 8 / 16 / 32 / open-set, already shuffled by the runner
with the run seed) and the KB.  It returns :class:`BaselineOutput`.  Responses quote review
text in double quotes followed by a ``[Rn]`` label, e.g. ``"the patio is lovely" [R1]``;
``citations`` maps each label to the review it quotes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from trace_crs.kb import KB


@dataclass(frozen=True)
class TurnContext:
    dialogue: dict[str, Any]          # the full reference dialogue record (read only the history!)
    turn_index: int                   # index into dialogue["turns"] of the system turn to produce
    action: str                       # "recommend" | "compare" (the reference turn's action)
    candidates: tuple[str, ...]       # candidate POI ids visible to the system for this turn
    kb: KB
    pool: str = "closed"              # "closed" | "16" | "32" | "open"

    @property
    def history(self) -> list[dict[str, Any]]:
        """Turns strictly before the system turn being predicted."""
        return self.dialogue["turns"][: self.turn_index]

    @property
    def user_texts(self) -> list[str]:
        return [t["text"] for t in self.history if t["role"] == "user"]

    @property
    def rejected_poi_ids(self) -> set[str]:
        """POIs recommended before a user's ``reject_and_refine`` turn (what the user turned down)."""
        rejected: set[str] = set()
        turns = self.history
        for i, turn in enumerate(turns):
            if turn["role"] == "user" and turn["action"] == "reject_and_refine" and i > 0:
                rejected.update(turns[i - 1].get("referenced_poi_ids", []))
        return rejected


@dataclass
class Usage:
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""                   # litellm model id, "" for non-LLM baselines
    mode: str = "n/a"                 # LLM ranking mode: "generative" | "logprob" | "n/a"
    fallback: bool = False            # True when the Popularity fallback produced this output
    error: str = ""                   # why the fallback was used ("" when it was not)


@dataclass
class BaselineOutput:
    ranked_poi_ids: list[str]
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)  # {"label", "review_id", "quote"}
    usage: Usage = field(default_factory=Usage)


class Baseline(Protocol):
    name: ClassVar[str]               # registry key, e.g. "tfidf"
    display_name: ClassVar[str]       # table label, e.g. "TF-IDF"
    uses_llm: ClassVar[bool]

    def prepare(self, kb: KB) -> None:
        """Build shared indexes once per run (may be a no-op)."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        """Rank ``ctx.candidates`` and write a cited response for this turn."""
