"""ItineraryBaseline (paper Appendix F, Finding 1d): proximity graph + greedy TSP.

* Proximity graph: two POIs of the same city are linked when they are within 500 m
  (haversine) and of *different* types (same-type edges excluded), so a pick's neighbours
  are the hotels/attractions/restaurants one can combine with it.
* Visit ordering: candidates are ordered by TF-IDF (rejected last); the tour starts at the
  first coordinate-valid one (not (0, 0)) and greedily visits the nearest unvisited
  candidate (ties: TF-IDF order).  Rejected POIs and coordinate-less ones follow the tour.
* The response lists the tour's first legs and the graph neighbours of the first stop with
  distance annotations: metres when under 1 km, else km with one decimal.
"""

from __future__ import annotations

import numpy as np

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.baselines.ranking import rank_by_score
from trace_crs.baselines.registry import Registered
from trace_crs.baselines.responses import template_output
from trace_crs.baselines.tfidf import tfidf_scores
from trace_crs.cache import memo
from trace_crs.kb import KB
from trace_crs.kb.geo import haversine_km

EDGE_KM = 0.5
MAX_NEIGHBOURS = 3


def format_distance(km: float) -> str:
    """``"350 m"`` below 1 km (rounded to 10 m), else ``"1.2 km"``."""
    return f"{int(round(km * 100)) * 10} m" if km < 1.0 else f"{km:.1f} km"


def _valid(kb: KB, pid: str) -> bool:
    poi = kb.pois[pid]
    return not (poi.latitude == 0.0 and poi.longitude == 0.0)


def proximity_graph(kb: KB, city: str) -> dict[str, list[tuple[float, str]]]:
    """``{poi: [(km, neighbour), …]}`` sorted by distance: different-type POIs within 500 m."""
    graphs = memo(kb, "itinerary_graph")
    if city not in graphs:
        ids = sorted(p for p, poi in kb.pois.items() if poi.city == city and _valid(kb, p))
        lat = np.array([kb.pois[i].latitude for i in ids])
        lon = np.array([kb.pois[i].longitude for i in ids])
        types = np.array([kb.pois[i].poi_type for i in ids])
        dist = np.atleast_2d(haversine_km(lat[:, None], lon[:, None], lat[None, :], lon[None, :]))
        linked = (dist <= EDGE_KM) & (types[:, None] != types[None, :])
        graphs[city] = {
            i: sorted((float(dist[a, b]), ids[b]) for b in np.flatnonzero(linked[a])) for a, i in enumerate(ids)
        }
    return graphs[city]


def greedy_tour(kb: KB, ordered: list[str]) -> list[str]:
    """Nearest-neighbour tour over ``ordered`` starting at its first coordinate-valid POI."""
    todo = [p for p in ordered if _valid(kb, p)]
    if not todo:
        return list(ordered)
    tour = [todo.pop(0)]
    while todo:
        here = kb.pois[tour[-1]]
        dists = [haversine_km(here.latitude, here.longitude, kb.pois[p].latitude, kb.pois[p].longitude) for p in todo]
        tour.append(todo.pop(int(np.argmin(dists))))  # argmin: first minimum = earliest in order
    return tour + [p for p in ordered if p not in tour]


def tour_notes(kb: KB, city: str, tour: list[str]) -> str:
    """Distance annotations: the first two legs and the first stop's graph neighbours."""
    notes = []
    for a, b in zip(tour[:3], tour[1:3], strict=False):
        pa, pb = kb.pois[a], kb.pois[b]
        km = haversine_km(pa.latitude, pa.longitude, pb.latitude, pb.longitude)
        notes.append(f"From {pa.name} it is {format_distance(km)} to {pb.name}.")
    near = proximity_graph(kb, city).get(tour[0], [])[:MAX_NEIGHBOURS] if tour else []
    if near:
        notes.append(
            "Nearby: "
            + "; ".join(f"{kb.pois[n].name} ({kb.pois[n].poi_type}, {format_distance(km)})" for km, n in near)
            + "."
        )
    return " ".join(notes)


class ItineraryBaseline(Registered, key="itinerary"):
    """Proximity graph + greedy nearest-neighbour ordering."""

    def prepare(self, kb: KB) -> None:
        """Graphs are built lazily per city."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        rejected = ctx.rejected_poi_ids
        by_text = rank_by_score(ctx.candidates, tfidf_scores(ctx), rejected)
        kept = [p for p in by_text if p not in rejected]
        ranked = greedy_tour(ctx.kb, kept) + [p for p in by_text if p in rejected]
        notes = tour_notes(ctx.kb, ctx.city, ranked[: len(kept)])
        return template_output(ctx, ranked, extra=notes)
