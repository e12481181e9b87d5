"""Candidate pools (paper §2.2, Appendix P): the closed 8-POI pool by stratified
rating/category sampling, the expanded 16 / 32 pools (supersets) and the open set (every
same-city/type POI), so one dialogue can be evaluated at every pool size without
regenerating."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from trace_crs.kb.store import KB

CLOSED_SIZE = 8
EXPANDED_SIZES: tuple[int, ...] = (16, 32)
FOCUS_SHARE = 4  # candidates drawn from the focus style (the rest from other styles)


def _style(kb: KB, bid: str) -> str:
    return str(kb.pois[bid].attributes.get("style") or "<none>")


def open_set(kb: KB, city: str, poi_type: str) -> list[str]:
    """All POIs of the city × type slice; raises when fewer than the closed pool needs."""
    ids = kb.pois_in(city, poi_type)
    if len(ids) < CLOSED_SIZE:
        raise ValueError(
            f"candidate pool for {city} / {poi_type} has {len(ids)} POIs; at least {CLOSED_SIZE} are needed"
        )
    return list(ids)


def _stratified(ids: list[str], k: int, kb: KB, rng: np.random.Generator) -> list[str]:
    """``k`` ids, one from each of ``k`` equal rating strata (ids sorted by stars, id)."""
    ranked = sorted(ids, key=lambda b: (kb.pois[b].stars, b))
    return [str(stratum[int(rng.integers(len(stratum)))]) for stratum in np.array_split(np.array(ranked), k)]


def sample_candidates(
    kb: KB,
    city: str,
    poi_type: str,
    rng: np.random.Generator,
    favoured_styles: frozenset[str] = frozenset(),
    favour: float = 10.0,
) -> tuple[str, list[str]]:
    """``(focus_style, 8 sorted ids)``: up to ``FOCUS_SHARE`` POIs of a focus style (a style
    with ≥ 2 POIs in the slice, chosen with probability ∝ its size, × ``1 + favour`` for a
    style the persona favours) stratified by rating, then one POI per other style (styles in
    random order, round robin) until 8."""
    ids = open_set(kb, city, poi_type)
    by_style: dict[str, list[str]] = defaultdict(list)
    for bid in ids:
        by_style[_style(kb, bid)].append(bid)
    styles = sorted(s for s, members in by_style.items() if len(members) >= 2) or sorted(by_style)
    sizes = np.array([len(by_style[s]) * (1.0 + favour * (s in favoured_styles)) for s in styles], dtype=float)
    focus = styles[int(rng.choice(len(styles), p=sizes / sizes.sum()))]
    chosen = _stratified(by_style[focus], min(FOCUS_SHARE, len(by_style[focus])), kb, rng)
    others = [s for s in sorted(by_style) if s != focus]
    order = [others[i] for i in rng.permutation(len(others))]
    remaining = {s: sorted(by_style[s]) for s in order}
    while len(chosen) < CLOSED_SIZE:
        progressed = False
        for s in order:
            left = [b for b in remaining[s] if b not in chosen]
            if left and len(chosen) < CLOSED_SIZE:
                chosen.append(left[int(rng.integers(len(left)))])
                progressed = True
        if not progressed:  # only the focus style is left
            left = [b for b in by_style[focus] if b not in chosen]
            chosen.extend(left[i] for i in rng.permutation(len(left))[: CLOSED_SIZE - len(chosen)])
    return focus, sorted(chosen)


def expanded_pools(open_ids: list[str], candidates: list[str], rng: np.random.Generator) -> dict[str, list[str]]:
    """Nested pools ``{"16": ..., "32": ...}``: each adds random same-slice POIs to the
    previous one (capped at the slice size); every list is sorted."""
    pool = list(candidates)
    rest = [b for b in sorted(open_ids) if b not in set(candidates)]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    out: dict[str, list[str]] = {}
    for size in EXPANDED_SIZES:
        take = max(0, min(size, len(open_ids)) - len(pool))
        pool, rest = pool + rest[:take], rest[take:]
        out[str(size)] = sorted(pool)
    return out
