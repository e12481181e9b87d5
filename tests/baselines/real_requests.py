"""The hand-written real-request fixture (``data/real_requests.yaml``) and how one case is
judged: the reader's :class:`~trace_crs.baselines.preferences.Stated` against the hand reading,
field by field (``soft`` is not compared: a hedge is a shade, not a different wish), and for
rejection cases :func:`~trace_crs.baselines.rejection.rejected_in_turn` on the offered place."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.rejection import rejected_in_turn
from trace_crs.stats.intervals import wilson

FIXTURE = Path(__file__).parent / "data" / "real_requests.yaml"  # the dev set (fixes are chosen on it)
HELDOUT = Path(__file__).parent / "data" / "real_requests_heldout.yaml"  # measured, never tuned on
HELDOUT2 = Path(__file__).parent / "data" / "real_requests_heldout2.yaml"  # written after the fixes
HELDOUT3 = Path(__file__).parent / "data" / "real_requests_heldout3.yaml"  # written before round 3's fixes
HELDOUT4 = Path(__file__).parent / "data" / "real_requests_heldout4.yaml"  # polite and idiomatic turns


def load_cases(path: Path = FIXTURE) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(category, case)`` for every request of the fixture at ``path``, in file order."""
    for category, cases in yaml.safe_load(path.read_text(encoding="utf-8")).items():
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
    case's POI type (the dollar bands depend on it) and the place names a deployed system knows
    at that turn (``names``: masked, :mod:`trace_crs.baselines.reader_names`)."""
    s = stated_preferences([case["text"]], case.get("poi_type"), case.get("names", ()))
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


def agreement(path: Path) -> pd.DataFrame:
    """Per category and overall (``all``): cases, cases read exactly as by hand (every field and
    the rejection verdict), and the Wilson 95 % interval of that share (stats.intervals.wilson)."""
    rows = [(category, not disagreements(case)) for category, case in load_cases(path)]
    df = pd.DataFrame(rows, columns=["category", "agree"])
    per = df.groupby("category", sort=False)["agree"].agg(n="size", k="sum")
    per.loc["all"] = [len(df), int(df["agree"].sum())]
    lo, hi = wilson(per["k"], per["n"])
    return per.assign(share=per["k"] / per["n"], lo=lo, hi=hi).reset_index()


def main(argv: list[str] | None = None) -> None:
    """``python tests/baselines/real_requests.py [fixture.yaml ...]``: the agreement table of
    each fixture (default: dev and the four held-out sets) for whichever ``trace_crs`` is on PYTHONPATH, and
    the cases read differently (``--diff``)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("fixtures", nargs="*", type=Path, default=[FIXTURE, HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4])
    parser.add_argument("--diff", action="store_true", help="list every disagreeing case")
    parser.add_argument("--cases", type=Path, help="also write one JSON line per case (agreement_compare.py)")
    args = parser.parse_args(argv)
    if args.cases:
        rows = [
            {"fixture": path.name, "category": c, "text": case["text"], "agree": not disagreements(case)}
            for path in args.fixtures
            for c, case in load_cases(path)
        ]
        args.cases.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    for path in args.fixtures:
        print(f"## {path.name}")
        print(agreement(path).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        if args.diff:
            for category, case in load_cases(path):
                if diff := disagreements(case):
                    print(f"  {category}: {case['text']!r} {diff}")


if __name__ == "__main__":
    main()
