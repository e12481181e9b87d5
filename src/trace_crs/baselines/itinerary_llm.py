"""Itinerary-LLM (paper Finding 1d, Appendix P): LLM Zero-Shot given the template Itinerary's
500 m proximity graph.

The conversation is followed by one line per shown candidate listing its graph neighbours
(different-type POIs within 500 m, :func:`trace_crs.baselines.itinerary.proximity_graph`)
and the distances between shown candidates that are within 500 m of each other, so the LLM
can reason about walkability; ranking and reply are exactly Zero-Shot's.
"""

from __future__ import annotations

from trace_crs.baselines.base import TurnContext
from trace_crs.baselines.itinerary import EDGE_KM, MAX_NEIGHBOURS, format_distance, proximity_graph
from trace_crs.baselines.llm_zero_shot import PrefilteredBaseline, ZeroShotModule
from trace_crs.kb.geo import haversine_km


def proximity_notes(ctx: TurnContext, shown: list[str]) -> str:
    """The proximity-graph block for ``shown`` ("" when no candidate has a neighbour)."""
    kb, graph = ctx.kb, proximity_graph(ctx.kb, ctx.city)
    lines = []
    for i, pid in enumerate(shown):
        a = kb.pois[pid]
        near = [
            f"{kb.pois[n].name} ({kb.pois[n].poi_type}, {format_distance(km)})"
            for km, n in graph.get(pid, [])[:MAX_NEIGHBOURS]
        ]
        for other in shown[i + 1 :]:
            b = kb.pois[other]
            km = float(haversine_km(a.latitude, a.longitude, b.latitude, b.longitude))
            if km <= EDGE_KM and (a.latitude, a.longitude) != (0.0, 0.0) and (b.latitude, b.longitude) != (0.0, 0.0):
                near.append(f"[{other}] {b.name} ({format_distance(km)})")
        if near:
            lines.append(f"[{pid}] {a.name} is within 500 m of: " + "; ".join(near))
    return ("Proximity graph (places within 500 m):\n" + "\n".join(lines)) if lines else ""


class ItineraryZeroShotModule(ZeroShotModule):
    """Zero-Shot with the proximity graph appended to the conversation."""

    def notes(self, ctx: TurnContext, shown: list[str]) -> str:
        return proximity_notes(ctx, shown)


class ItineraryLLMBaseline(PrefilteredBaseline, key="itinerary_llm"):
    """LLM Zero-Shot + 500 m proximity graph (Finding 1d)."""

    modes = ("generative", "logprob", "choice")
    auto_mode = "choice"  # one shared prefix per dialogue (baselines/choice.py; issue 44)

    module_class = ItineraryZeroShotModule
