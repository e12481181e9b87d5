"""The baseline interface (paper §4, Appendix F): one system turn in, a ranked list and a
cited response out.

A baseline sees only what a deployed system would (the no-leakage contract): the conversation so far, the
city, the POI type and persona type of the request, the candidate pool for that turn (closed
8 / 16 / 32 / open-set, already shuffled by the runner with the run seed) and the KB.  It
never sees gold, acceptable alternatives, hidden preferences, future turns or the
generator's labels of user turns: :meth:`TurnContext.from_dialogue` redacts a reference
dialogue into exactly that view.  It returns :class:`BaselineOutput`.  Responses quote review
text in double quotes followed by a ``[Rn]`` label, e.g. ``"the patio is lovely" [R1]``;
``citations`` maps each label to the review it quotes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from trace_crs.baselines.reader_names import name_key
from trace_crs.baselines.rejection import rejected_in_turn
from trace_crs.kb import KB
from trace_crs.lm.usage import TokenCost

# What a deployed system knows of a past turn: everything the user said (as text) and what it
# said itself (its act, text, the POIs it named and its citations).  No annotation of user turns.
USER_TURN_KEYS: tuple[str, ...] = ("turn_id", "role", "text")
SYSTEM_TURN_KEYS: tuple[str, ...] = ("turn_id", "role", "action", "text", "referenced_poi_ids", "citations")


_CITY_NAMES: dict[tuple[int, str], tuple[KB, tuple[str, ...]]] = {}


def _city_names(kb: KB, city: str) -> tuple[str, ...]:
    """Names of ``kb``'s POIs in ``city``, computed once per KB and city."""
    hit = _CITY_NAMES.get((id(kb), city))
    if hit is None or hit[0] is not kb:
        hit = (kb, name_key(p.name for p in kb.pois.values() if p.city == city))
        _CITY_NAMES[(id(kb), city)] = hit
    return hit[1]


def redact_turn(turn: Mapping[str, Any]) -> dict[str, Any]:
    """The public view of one past turn (:data:`USER_TURN_KEYS` / :data:`SYSTEM_TURN_KEYS`)."""
    keys = USER_TURN_KEYS if turn["role"] == "user" else SYSTEM_TURN_KEYS
    return {k: turn[k] for k in keys if k in turn}


@dataclass(frozen=True)
class TurnContext:
    dialogue_id: str
    turn_id: int  # turn_id of the system turn to produce
    turn_index: int  # its position (= number of turns before it)
    action: str  # "recommend" | "compare" (the act the replayed turn takes)
    history: tuple[dict[str, Any], ...]  # redacted turns strictly before it (redact_turn)
    city: str
    poi_type: str
    persona_type: str
    candidates: tuple[str, ...]  # candidate POI ids visible to the system for this turn
    kb: KB
    pool: str = "closed"  # "closed" | "16" | "32" | "open"

    @classmethod
    def from_dialogue(
        cls,
        dialogue: Mapping[str, Any],
        turn_index: int,
        candidates: tuple[str, ...],
        kb: KB,
        pool: str = "closed",
        action: str | None = None,
    ) -> TurnContext:
        """Redact reference ``dialogue`` into the view of its system turn ``turn_index``."""
        turns = dialogue["turns"]
        scen = dialogue["scenario"]
        return cls(
            dialogue_id=str(dialogue["dialogue_id"]),
            turn_id=int(turns[turn_index]["turn_id"]),
            turn_index=turn_index,
            action=action or str(turns[turn_index]["action"]),
            history=tuple(redact_turn(t) for t in turns[:turn_index]),
            city=str(scen["city"]),
            poi_type=str(scen["poi_type"]),
            persona_type=str(scen.get("persona_type") or ""),
            candidates=tuple(candidates),
            kb=kb,
            pool=pool,
        )

    @property
    def user_texts(self) -> list[str]:
        return [t["text"] for t in self.history if t["role"] == "user"]

    @property
    def rejected_poi_ids(self) -> set[str]:
        """POIs the user turned down, read from the conversation as a deployed system would
        (:func:`trace_crs.baselines.rejection.rejected_in_turn` on each user turn that answers
        a system turn naming POIs)."""
        rejected: set[str] = set()
        for prev, turn in zip(self.history, self.history[1:], strict=False):
            offered = (
                [p for p in prev.get("referenced_poi_ids") or [] if p in self.kb.pois]
                if prev["role"] == "system"
                else []
            )
            if turn["role"] == "user" and offered:
                names = [self.kb.pois[p].name for p in offered]
                rejected |= rejected_in_turn(turn["text"], offered, names)
        return rejected

    @property
    def place_names(self) -> tuple[str, ...]:
        """Place names the system knows — its candidates' and the public KB's POIs of the
        city — for the preference reader to mask (:mod:`trace_crs.baselines.reader_names`)."""
        return name_key(
            [self.kb.pois[c].name for c in self.candidates if c in self.kb.pois] + list(_city_names(self.kb, self.city))
        )


@dataclass
class Usage(TokenCost):
    """What one turn of a baseline cost and how it was produced (a record's usage columns)."""

    latency_s: float = 0.0
    model: str = ""  # litellm model id, "" for non-LLM baselines
    mode: str = "n/a"  # LLM ranking mode: "generative" | "logprob" | "choice" | "n/a"
    fallback: bool = False  # True when the Popularity fallback produced this output
    error: str = ""  # why the fallback was used ("" when it was not)


@dataclass
class BaselineOutput:
    ranked_poi_ids: list[str]
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)  # {"label", "review_id", "quote"}
    usage: Usage = field(default_factory=Usage)


class Baseline(Protocol):
    name: ClassVar[str]  # registry key, e.g. "tfidf"
    label: ClassVar[str]  # table label, e.g. "TF-IDF" (both from baselines.registry)
    uses_llm: ClassVar[bool]

    def prepare(self, kb: KB) -> None:
        """Build shared indexes once per run (may be a no-op)."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        """Rank ``ctx.candidates`` and write a cited response for this turn."""


def show_corpus_to(systems: Iterable[Any], contexts: Callable[[], Sequence[TurnContext]]) -> None:
    """Hand every system that learns from the corpus (``see_corpus``: Memory-Aug.'s corpus-order
    memory, Persona-Grounded's leave-one-dialogue-out prior) ``contexts()`` — built only when one
    does — before any turn is asked, so what it learns does not depend on which turn is asked first."""
    learners = [s for s in systems if hasattr(s, "see_corpus")]
    if learners:
        seen = contexts()
        for system in learners:
            system.see_corpus(seen)
