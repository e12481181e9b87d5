"""The hand-written real-request fixture (``data/real_requests.yaml``) and how one case is
judged: the reader's :class:`~trace_crs.baselines.preferences.Stated` against the hand reading,
field by field (``soft`` is not compared: a hedge is a shade, not a different wish), and for
rejection cases :func:`~trace_crs.baselines.rejection.rejected_in_turn` on the offered place."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.rejection import rejected_in_turn

FIXTURE = Path(__file__).parent / "data" / "real_requests.yaml"


def load_cases() -> Iterator[tuple[str, dict[str, Any]]]:
    """``(category, case)`` for every request of the fixture, in file order."""
    for category, cases in yaml.safe_load(FIXTURE.read_text(encoding="utf-8")).items():
        for case in cases:
            yield category, case


def expected(case: dict[str, Any]) -> dict[str, Any]:
    """The hand reading as comparable values (absent fields empty)."""
    e = case.get("expect") or {}
    return {
        "style": e.get("style"),
        "noise": e.get("noise"),
        "price_max": e.get("price_max"),
        "ambience": tuple(sorted(e.get("ambience", []))),
        "features": tuple(sorted(e.get("features", []))),
        "avoid": tuple(sorted(tuple(a) for a in e.get("avoid", []))),
        "either": tuple(tuple(tuple(c) for c in g) for g in e.get("either", [])),
        "indifferent": tuple(sorted(e.get("indifferent", []))),
    }


def read(case: dict[str, Any]) -> dict[str, Any]:
    """What the rule-based reader takes from the case (same shape as :func:`expected`), with the
    case's POI type (the dollar bands depend on it)."""
    s = stated_preferences([case["text"]], case.get("poi_type"))
    return {
        "style": s.style,
        "noise": s.noise,
        "price_max": s.price_max,
        "ambience": s.ambience,
        "features": s.features,
        "avoid": s.avoid,
        "either": s.either,
        "indifferent": s.indifferent,
    }


def disagreements(case: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """``{field: (hand reading, reader's)}`` for every field they differ on (empty: agreement)."""
    want, got = expected(case), read(case)
    out = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    if "rejected" in case:
        turned_down = bool(rejected_in_turn(case["text"], ["p1"], [case["offered"]]))
        if turned_down != case["rejected"]:
            out["rejected"] = (case["rejected"], turned_down)
    return out
