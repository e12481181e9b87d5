"""The baseline registry (paper §4, Appendix A Table 8; ARCHITECTURE §3).

The one baseline catalogue: each :class:`Spec` carries the key, the ``"module:Class"`` it is
built from (resolved lazily by :func:`create`, so listing or validating names never imports
torch, DSPy or an LLM backend), the paper's table label and the family (``"llm"``: uses a
language model at inference time, else ``"non_llm"``; the one spelling).  ``BASELINES``,
``LABELS`` and ``FAMILY`` are views of it; the classes take ``name``, ``label`` and
``uses_llm`` from it through :class:`Registered`, and the report layer reads labels and
families here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

_PKG = "trace_crs.baselines"
FAMILIES: tuple[str, ...] = ("non_llm", "llm")


@dataclass(frozen=True)
class Spec:
    """One registered baseline: key, ``module:Class``, table label, family."""

    name: str
    target: str
    label: str
    family: str

    @property
    def uses_llm(self) -> bool:
        return self.family == "llm"


def _spec(name: str, cls: str, label: str, family: str) -> Spec:
    return Spec(name, f"{_PKG}.{name}:{cls}", label, family)


SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        _spec("popularity", "PopularityBaseline", "Popularity", "non_llm"),
        _spec("tfidf", "TfidfBaseline", "TF-IDF", "non_llm"),
        _spec("aspect", "AspectBaseline", "Aspect", "non_llm"),
        _spec("dense", "DenseBaseline", "Dense", "non_llm"),
        _spec("spatial", "SpatialBaseline", "Spatial", "non_llm"),
        _spec("hybrid_rrf", "HybridRRFBaseline", "Hybrid-RRF", "non_llm"),
        _spec("itinerary", "ItineraryBaseline", "Itinerary", "non_llm"),
        _spec("knowledge", "KnowledgeBaseline", "Knowledge-Enh.", "non_llm"),
        _spec("persona", "PersonaBaseline", "Persona-Ground.", "non_llm"),
        _spec("llm_zero_shot", "LLMZeroShotBaseline", "LLM Zero-Shot", "llm"),
        _spec("dst", "DSTBaseline", "DST", "llm"),
        _spec("rag_citation", "RAGCitationBaseline", "RAG-Citation", "llm"),
        _spec("mrs", "MultiReviewSynthesisBaseline", "Multi-Rev. Synth.", "llm"),
        _spec("memory", "MemoryAugmentedBaseline", "Memory-Aug.", "llm"),
        _spec("itinerary_llm", "ItineraryLLMBaseline", "Itinerary-LLM", "llm"),
    )
}
BASELINES: dict[str, str] = {k: s.target for k, s in SPECS.items()}
LABELS: dict[str, str] = {k: s.label for k, s in SPECS.items()}
FAMILY: dict[str, str] = {k: s.family for k, s in SPECS.items()}
NON_LLM: tuple[str, ...] = tuple(k for k, s in SPECS.items() if not s.uses_llm)
LLM: tuple[str, ...] = tuple(k for k, s in SPECS.items() if s.uses_llm)
SESSION_ISOLATED: frozenset[str] = frozenset(BASELINES) - {"memory"}  # §4: Memory-Aug. reported apart


def uses_llm(name: str) -> bool:
    """Whether baseline ``name`` calls a language model at inference time."""
    return SPECS[name].uses_llm


class Registered:
    """Base of the baseline classes: ``class TfidfBaseline(Registered, key="tfidf")`` takes its
    ``name``, ``label`` and ``uses_llm`` from the registry entry instead of restating them."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    uses_llm: ClassVar[bool] = False

    def __init_subclass__(cls, key: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if key:
            spec = SPECS[key]
            cls.name, cls.label, cls.uses_llm = spec.name, spec.label, spec.uses_llm


def resolve(spec: str) -> list[str]:
    """Baseline keys of a ``--baselines`` value: ``all``, ``non-llm``, ``llm`` or ``a,b,…``
    (registry order for the group words; given order, de-duplicated, otherwise)."""
    groups = {"all": list(BASELINES), "non-llm": list(NON_LLM), "llm": list(LLM)}
    if spec.strip().lower() in groups:
        return groups[spec.strip().lower()]
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in BASELINES]
    if unknown or not names:
        raise ValueError(f"unknown baseline(s) {unknown or [spec]}; known: {', '.join(BASELINES)}")
    return list(dict.fromkeys(names))


def baseline_class(name: str) -> type:
    """Import and return the class registered under ``name``."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}")
    module, _, cls = BASELINES[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def create(name: str, **kwargs: Any) -> Any:
    """A new instance of baseline ``name`` (keyword arguments go to its constructor)."""
    return baseline_class(name)(**kwargs)
