"""What the preference reader and the rejection reader take from generated dialogues, per
user-turn prefix, as JSON lines — run once with main's ``trace_crs`` on PYTHONPATH and once
with a branch's, then compare (``--compare A B``) to count the prefixes whose reading changed.

DST (an LLM baseline) puts the rejected POI ids into its state JSON and filters its top cards
by ``stated_preferences(...).avoid``, both part of its LLM prompts: a changed ``rejected`` or
``avoid`` on an evaluated prefix changes a cached LM request.  Read-only on the data.

    python tests/baselines/reader_impact.py DIALOGUES.jsonl POIS.jsonl --subset 20 --seed 42 > out.jsonl
    python tests/baselines/reader_impact.py --compare main.jsonl branch.jsonl
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from dataclasses import asdict

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.rejection import rejected_in_turn
from trace_crs.dialogues.subset import select_subset


def readings(dialogues: str, pois: str, subset: int | None, seed: int) -> None:
    names, by_city = {}, {}
    with open(pois, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            names[rec["business_id"]] = rec["name"]
            by_city.setdefault(rec.get("city"), []).append(rec["name"])
    # a reader that masks known place names gets the city's KB names (TurnContext.place_names)
    masks = "names" in inspect.signature(stated_preferences).parameters
    with open(dialogues, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    for d in select_subset(records, subset, seed):
        turns, rejected = d["turns"], set()
        for i, turn in enumerate(turns):
            if turn["role"] != "user":
                continue
            prev = turns[i - 1] if i else None
            offered = [p for p in (prev or {}).get("referenced_poi_ids") or [] if p in names]
            if prev is not None and prev["role"] == "system" and offered:
                rejected |= rejected_in_turn(turn["text"], offered, [names[p] for p in offered])
            texts = [t["text"] for t in turns[: i + 1] if t["role"] == "user"]
            kw = {"names": tuple(by_city.get(d["scenario"].get("city"), ()))} if masks else {}
            stated = stated_preferences(texts, d["scenario"].get("poi_type"), **kw)
            row = {
                "dialogue_id": d["dialogue_id"],
                "turn": i,
                "text": turn["text"],
                "avoid": sorted(map(list, stated_preferences(texts, **kw).avoid)),
                "rejected": sorted(rejected),
                "stated": json.loads(json.dumps(asdict(stated))),
            }
            print(json.dumps(row, sort_keys=True))


def compare(a: str, b: str) -> None:
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        rows = [(json.loads(x), json.loads(y)) for x, y in zip(fa, fb, strict=True)]
    for field in ("avoid", "rejected", "stated"):
        changed = [(x, y) for x, y in rows if x[field] != y[field]]
        print(f"{field}: {len(changed)} of {len(rows)} user-turn prefixes changed")
        for x, y in changed[:40]:
            print(f"  {x['dialogue_id']} turn {x['turn']}: {x['text'][:90]!r}\n    {x[field]} -> {y[field]}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs=2)
    parser.add_argument("--subset", type=int, default=None)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.paths)
    else:
        readings(*args.paths, args.subset, args.seed)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
