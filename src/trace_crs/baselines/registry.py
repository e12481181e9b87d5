"""The baseline registry (paper §4, Appendix A Table 8; ARCHITECTURE §3).

``BASELINES`` maps each key to ``"module:Class"`` and is resolved lazily by :func:`create`,
so listing or validating names never imports torch, DSPy or an LLM backend.  This module is the
one baseline catalogue: ``LABELS`` gives the paper's table label and ``FAMILY`` the family
(``"llm"``: uses a language model at inference time, else ``"non_llm"``); the report layer
reads both from here.
"""

from __future__ import annotations

import importlib
from typing import Any

_PKG = "trace_crs.baselines"
NON_LLM: tuple[str, ...] = (
    "popularity",
    "tfidf",
    "aspect",
    "dense",
    "spatial",
    "hybrid_rrf",
    "itinerary",
    "knowledge",
    "persona",
)
LLM: tuple[str, ...] = ("llm_zero_shot", "dst", "rag_citation", "mrs", "memory", "itinerary_llm")

BASELINES: dict[str, str] = {
    "popularity": f"{_PKG}.popularity:PopularityBaseline",
    "tfidf": f"{_PKG}.tfidf:TfidfBaseline",
    "aspect": f"{_PKG}.aspect:AspectBaseline",
    "dense": f"{_PKG}.dense:DenseBaseline",
    "spatial": f"{_PKG}.spatial:SpatialBaseline",
    "hybrid_rrf": f"{_PKG}.hybrid_rrf:HybridRRFBaseline",
    "itinerary": f"{_PKG}.itinerary:ItineraryBaseline",
    "knowledge": f"{_PKG}.knowledge:KnowledgeBaseline",
    "persona": f"{_PKG}.persona:PersonaBaseline",
    "llm_zero_shot": f"{_PKG}.llm_zero_shot:LLMZeroShotBaseline",
    "dst": f"{_PKG}.dst:DSTBaseline",
    "rag_citation": f"{_PKG}.rag_citation:RAGCitationBaseline",
    "mrs": f"{_PKG}.mrs:MultiReviewSynthesisBaseline",
    "memory": f"{_PKG}.memory:MemoryAugmentedBaseline",
    "itinerary_llm": f"{_PKG}.itinerary_llm:ItineraryLLMBaseline",
}
LABELS: dict[str, str] = {
    "popularity": "Popularity",
    "tfidf": "TF-IDF",
    "aspect": "Aspect",
    "dense": "Dense",
    "spatial": "Spatial",
    "hybrid_rrf": "Hybrid-RRF",
    "itinerary": "Itinerary",
    "knowledge": "Knowledge-Enh.",
    "persona": "Persona-Ground.",
    "llm_zero_shot": "LLM Zero-Shot",
    "dst": "DST",
    "rag_citation": "RAG-Citation",
    "mrs": "Multi-Rev. Synth.",
    "memory": "Memory-Aug.",
    "itinerary_llm": "Itinerary-LLM",
}
FAMILY: dict[str, str] = {**{k: "non_llm" for k in NON_LLM}, **{k: "llm" for k in LLM}}
GROUPS: dict[str, str] = {k: "LLM" if f == "llm" else "non-LLM" for k, f in FAMILY.items()}  # runner's spelling
SESSION_ISOLATED: frozenset[str] = frozenset(BASELINES) - {"memory"}  # §4: Memory-Aug. reported apart


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
