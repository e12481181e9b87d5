"""Accuracy and cost of the simulated user's question reader (``trace_crs.live.ask``): what it
reads a system question as — the facets asked about (``asked_facets`` plus ``"anchor"`` when
``asks_location``) and the kind of answer (``facets``; ``open``: the next preference; ``none``:
"no particular preference about that") — against hand-decided labels; and, of the questions read
right as ``none`` in the categories ``not_pref`` and ``lacking``, whether the revision's ``aside``
reading ("not sure": no preference at all) agrees with the category ``not_pref``.

Sets (each ``tests/live/data/``): ``held_out_questions.yaml`` (held out for the first classifier;
its misreads were then looked at, so for any later revision it is development data),
``held_out_questions_2.yaml`` (the held-out test of the second revision, development data since),
``held_out_questions_3.yaml`` (written before the revision with the ``aside`` class, list items
and the model-free template questions; measured once before and once after it; development data
since), ``held_out_questions_4.yaml`` (written after set 3 was measured and before the examples
of implied needs were added; measured before and once after) and ``old_phrasings.yaml`` (the
phrasings taught before the classifier: a development set).
A question is correct when both its facet set and its kind equal the label's.  Reported per
set and category: k/n correct with a Wilson 95 % interval (statsmodels), and the reader's
median wall time per question, cold (first read) and warm (the same text again).  It uses only
the three reading functions, so the same script measures any revision of the reader
(``PYTHONPATH=<worktree>/src``).  The machine may be shared: compare ratios, not walls.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import yaml
from statsmodels.stats.proportion import proportion_confint

from trace_crs.live.ask import asked_facets, asks_location, open_question

try:  # the revision's "aside" reading (a question about no preference); older revisions lack it
    from trace_crs.live.ask import not_a_preference
except ImportError:  # pragma: no cover - measuring an older revision
    not_a_preference = None

DATA = Path(__file__).resolve().parents[1] / "tests" / "live" / "data"
SETS = {
    "held_out": DATA / "held_out_questions.yaml",
    "held_out_2": DATA / "held_out_questions_2.yaml",
    "held_out_3": DATA / "held_out_questions_3.yaml",
    "held_out_4": DATA / "held_out_questions_4.yaml",
    "old": DATA / "old_phrasings.yaml",
}


def reading(question: str) -> tuple[frozenset[str], str]:
    """``(facets, kind)`` as the template user reads ``question`` (its ``respond`` rule)."""
    text = f"[Ask] {question}"
    facets = frozenset(asked_facets(text) + (["anchor"] if asks_location(text) else []))
    return facets, "facets" if facets else ("open" if open_question(text) else "none")


def cell(k: int, n: int) -> dict[str, float | int]:
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return {"k": k, "n": n, "acc": round(k / n, 3), "lo": round(float(lo), 3), "hi": round(float(hi), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-errors", action="store_true", help="print each misread question")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated sets to measure (default: all)")
    ap.add_argument("--items", type=Path, help="write each question's reading and correctness here (JSON)")
    ap.add_argument("--against", type=Path, help="an --items file of another revision: exact McNemar per set")
    args = ap.parse_args()
    items: list[dict[str, object]] = []
    rows, cold, warm = [], [], []
    chosen = [s.strip() for s in args.sets.split(",") if s.strip()]
    for name in chosen:
        for item in yaml.safe_load(SETS[name].read_text()):
            t0 = time.perf_counter()
            got = reading(item["q"])
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            reading(item["q"])
            warm.append(time.perf_counter() - t0)
            ok = got == (frozenset(item["facets"]), item["kind"])
            rows.append((name, item["cat"], ok))
            aside = not_a_preference(f"[Ask] {item['q']}") if not_a_preference is not None else None
            items.append(
                {"set": name, "q": item["q"], "cat": item["cat"], "facets": sorted(got[0]), "kind": got[1], "ok": ok}
                | {"aside": aside}
            )
            if args.show_errors and not ok:
                print(
                    f"MISREAD [{name}/{item['cat']}] {item['q']!r}: got {sorted(got[0])} {got[1]}, "
                    f"want {item['facets']} {item['kind']}"
                )
    out: dict[str, dict[str, object]] = {}
    for name in chosen:
        mine = [r for r in rows if r[0] == name]
        out[name] = {"all": cell(sum(r[2] for r in mine), len(mine))}
        for cat in dict.fromkeys(r[1] for r in mine):
            sub = [r for r in mine if r[1] == cat]
            out[name][cat] = cell(sum(r[2] for r in sub), len(sub))
    out["cost_ms"] = {
        "cold_first": round(cold[0] * 1e3, 1),
        "cold_median": round(statistics.median(cold) * 1e3, 2),
        "warm_median": round(statistics.median(warm) * 1e3, 3),
    }
    if not_a_preference is not None:  # of the not_pref / lacking questions read right as `none`: not_pref as aside
        for name in chosen:
            nones = [
                i
                for i in items
                if i["set"] == name and i["ok"] and i["kind"] == "none" and i["cat"] in ("not_pref", "lacking")
            ]
            agree = sum(1 for i in nones if i["aside"] == (i["cat"] == "not_pref"))
            out[name]["aside_matches_not_pref"] = cell(agree, len(nones)) if nones else {"k": 0, "n": 0}
    if args.against is not None:
        out["mcnemar"] = compare(json.loads(args.against.read_text()), items)
    if args.items is not None:
        args.items.write_text(json.dumps(items, indent=0) + "\n")
    print(json.dumps(out, indent=1))


def compare(before: list[dict[str, object]], after: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    """Exact McNemar test (statsmodels, binomial on the discordant pairs) per set: ``b`` questions
    right before and wrong after, ``c`` wrong before and right after."""
    from statsmodels.stats.contingency_tables import mcnemar

    old = {(i["set"], i["q"]): i["ok"] for i in before}
    out: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(str(i["set"]) for i in after):
        pairs = [(old[(name, i["q"])], i["ok"]) for i in after if i["set"] == name and (name, i["q"]) in old]
        b = sum(1 for x, y in pairs if x and not y)
        c = sum(1 for x, y in pairs if y and not x)
        table = [[sum(1 for x, y in pairs if x and y), b], [c, sum(1 for x, y in pairs if not x and not y)]]
        out[name] = {"n": len(pairs), "b": b, "c": c, "p": round(float(mcnemar(table, exact=True).pvalue), 4)}
    return out


if __name__ == "__main__":
    main()
