"""How often do the default corpus's user turns name a KB POI, and how often does the
preference reader take a facet value from inside that name?  Read-only on the data; run
with main's or a branch's ``trace_crs`` on PYTHONPATH (the count of readings from inside a
name is the reader's; the count of turns naming a POI is the corpus's).

A name is found case- and punctuation-insensitively (apostrophes, "&"/"and", hyphens folded)
among the POIs of the dialogue's city; ``--fuzzy`` adds rapidfuzz partial matches ≥ 95.

    python tests/baselines/name_mentions.py DIALOGUES.jsonl POIS.jsonl
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
from collections import defaultdict

from trace_crs.baselines.preferences import stated_preferences
from trace_crs.baselines.reader_text import fold
from trace_crs.kb.facets import FACET_KEYS
from trace_crs.kb.lexicon import find_facets


def key(text: str) -> str:
    """Lower case, apostrophes dropped, other punctuation a space, spaces collapsed — keeps no offsets."""
    text = text.casefold().replace("’", "'").replace("'", "").replace("&", " and ")
    return " " + re.sub(r"[^\w]+", " ", text).strip() + " "


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dialogues")
    parser.add_argument("pois")
    args = parser.parse_args(argv)
    by_city: dict[str, list[str]] = defaultdict(list)
    with open(args.pois, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            by_city[rec["city"]].append(rec["name"])
    turns = named = inside = read_inside = 0
    examples: list[str] = []
    with open(args.dialogues, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            names = by_city[d["scenario"]["city"]]
            keys = [(n, key(n)) for n in names]
            for t in d["turns"]:
                if t["role"] != "user":
                    continue
                turns += 1
                k = key(t["text"])
                hit = [n for n, nk in keys if nk.strip() and nk in k]
                if not hit:
                    continue
                named += 1
                # facet keywords inside the names named here
                vals = {(fa, v) for n in hit for fa in FACET_KEYS for v, _, _ in find_facets(fold(n), fa)}
                if not vals:
                    continue
                inside += 1
                # does the reader, on this turn alone, take one of them?
                kw = {"names": tuple(names)} if "names" in inspect.signature(stated_preferences).parameters else {}
                st = stated_preferences([t["text"]], d["scenario"].get("poi_type"), **kw)
                got = set(st.as_constraints()) | set(st.avoid) | {c for g in st.either for c in g}
                if vals & got:
                    read_inside += 1
                    if len(examples) < 15:
                        examples.append(f"  {t['text'][:100]!r} -> {sorted(vals & got)}")
    print(f"user turns: {turns}")
    print(f"naming a KB POI of the city: {named}")
    print(f"  of which the named POI's name holds a facet keyword: {inside}")
    print(f"  of which the reader takes a value from inside the name: {read_inside}")
    print("\n".join(examples))


if __name__ == "__main__":
    main()
