"""Asking in the live loop: a system may ask a clarifying question instead of recommending
(CoRE's Proactiveness, seed 001 Table 1; TravelBench's multi-turn subtask, seed 003 §3).

* **The act.**  A system answer whose text carries the ``[Ask]`` marker (:func:`asks`) is an
  ``ask_preference`` turn (the dialogue schema's system act); like an abstention it recommends
  nothing, and it counts as a system turn without success (TSR / T2R charge it).  An LLM system
  may write the question in its own words after the marker.
* **What was asked.**  :func:`asked_facets` reads the facets a question is about from its words
  (:mod:`trace_crs.live.reading`: a nearest-example classifier on sentence embeddings that
  abstains below a threshold): the simulated user understands a question the way a reader
  would, from the text alone, for the template questions and an LLM's own wording alike.
* **Which facet to ask about** is the system's choice.  An LLM system (``uses_llm``) is told it
  may ask — the ``[Ask]`` rule of :mod:`trace_crs.baselines.ask_rule` joins its instruction while
  it has a question left — and asks, or not, in its own words.  :class:`Asking` gives a ranker that
  cannot ask by itself an uncertainty policy: ask about the facet whose values split the current
  candidates most evenly — the largest Shannon entropy of the partition of candidates by the
  facet's public KB value (:func:`facet_entropy`, ``scipy.stats.entropy``, nats) — among the
  facets not asked yet, at most ``max_questions`` times, then recommend as the wrapped system.
  It reads only the candidates' public attributes and its own past questions, never the profile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from scipy.stats import entropy

from trace_crs.baselines.ask_rule import ASK_RE, may_ask
from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.kb.schema import POI
from trace_crs.live.reading import ASKABLE, asked_facets
from trace_crs.live.reading import QUESTIONS as QUESTIONS  # the Asking policy's wording, read without a model
from trace_crs.live.reading import asks_location as asks_location  # re-exported: the simulator reads questions here
from trace_crs.live.reading import not_a_preference as not_a_preference
from trace_crs.live.reading import open_question as open_question

ASK_ACTION = "ask_preference"


def asks(text: str | None) -> bool:
    """Whether a system answer asks a question (carries the ``[Ask]`` marker)."""
    return bool(ASK_RE.search(text or ""))


def facet_key(poi: POI, facet: str) -> Any:
    """A POI's public value of one facet (list facets: the sorted tuple; unknown: ``None``)."""
    if facet == "price_max":
        return poi.price
    value = (poi.attributes or {}).get(facet)
    return tuple(sorted(value)) if isinstance(value, list) else value


def facet_entropy(pois: Sequence[POI], facet: str) -> float:
    """Shannon entropy (nats) of the partition of ``pois`` by :func:`facet_key`; 0 for < 2 POIs."""
    counts = Counter(facet_key(p, facet) for p in pois)
    return float(entropy(list(counts.values()))) if len(pois) > 1 else 0.0


def already_asked(history: Iterable[dict[str, Any]]) -> tuple[int, set[str]]:
    """``(questions asked, facets asked about)`` by the system in ``history``."""
    texts = [t.get("text") or "" for t in history if t.get("role") == "system" and asks(t.get("text"))]
    return len(texts), {f for t in texts for f in asked_facets(t)}


def next_question(ctx: TurnContext, max_questions: int) -> str | None:
    """The :class:`Asking` policy's question at ``ctx`` (module docstring), or ``None``."""
    n, asked = already_asked(ctx.history)
    if n >= max_questions:
        return None
    pois = [ctx.kb.pois[c] for c in ctx.candidates if c in ctx.kb.pois]
    scored = [(facet_entropy(pois, f), -i, f) for i, f in enumerate(ASKABLE) if f not in asked]
    best = max(scored, default=None)
    return QUESTIONS[best[2]] if best is not None and best[0] > 0 else None


class Asking:
    """A system that may ask up to ``max_questions`` questions before answering as ``inner``
    (module docstring): a ranker by the uncertainty policy, an LLM system (``inner.uses_llm``)
    by its own choice under the ``[Ask]`` rule; other attributes are ``inner``'s."""

    def __init__(self, inner: Any, max_questions: int = 1) -> None:
        if max_questions < 0:
            raise ValueError(f"max_questions must be >= 0, got {max_questions}")
        self.inner, self.max_questions = inner, max_questions

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def warm(self, contexts: Sequence[TurnContext]) -> None:
        """Warm ``inner`` for the contexts it will answer: all of them when it asks itself."""
        warm = getattr(self.inner, "warm", None)
        if warm is not None:
            warm(
                list(contexts)
                if self.asks_itself
                else [c for c in contexts if next_question(c, self.max_questions) is None]
            )

    @property
    def asks_itself(self) -> bool:
        """Whether ``inner`` writes its own questions (an LLM system) rather than follow the policy."""
        return bool(getattr(self.inner, "uses_llm", False))

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        if self.asks_itself:
            with may_ask(already_asked(ctx.history)[0] < self.max_questions):
                return self.inner.predict(ctx)
        question = next_question(ctx, self.max_questions)
        return BaselineOutput([], question) if question is not None else self.inner.predict(ctx)
