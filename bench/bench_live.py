"""Benchmark of the live loop (``make bench``, never a timed test): dialogues per
second of ``trace_crs.live.loop.converse_many`` with the simulated user.

Inputs: the paper-scale KB and corpus (``data/kb/default``, ``data/dialogues/default``) when
present, else a synthetic KB (100 POIs per city × type) and ``--dialogues`` simulated
dialogues.  For each of ``--baselines`` (prepared once, indexes built outside the timing) and
for a scripted system that always recommends its first candidate (the cost of the simulator,
the context building and the transcript alone), the median over ``--repeat`` runs of the wall
time to converse with ``--dialogues`` seeded dialogues; reported as dialogues/s and system
turns/s.  The conversations are the same in every repeat, so the baselines' per-process memo
tables (e.g. TF-IDF scores of a query text) are warm after the first: the median is the warm
rate.  The machine may be shared: compare ratios, not walls.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from trace_crs.baselines.base import BaselineOutput, TurnContext
from trace_crs.dialogues.generate import generate_simulated
from trace_crs.kb.store import KB, load_kb
from trace_crs.kb.synthetic import build_synthetic
from trace_crs.live.loop import converse_many
from trace_crs.runner.execute import build_baselines
from trace_crs.runner.tasks import load_evaluated

PAPER_KB, PAPER_DIALOGUES = "data/kb/default", "data/dialogues/default/dialogues.jsonl"


class FirstCandidate:
    """Recommends its first candidate: the loop's own cost, no ranking."""

    def predict(self, ctx: TurnContext) -> BaselineOutput:
        return BaselineOutput(list(ctx.candidates), f"Try {ctx.kb.pois[ctx.candidates[0]].name}.")


def inputs(n: int) -> tuple[KB, list[dict[str, Any]], str]:
    if Path(PAPER_KB, "pois.jsonl").is_file() and Path(PAPER_DIALOGUES).is_file():
        return load_kb(PAPER_KB), load_evaluated(PAPER_DIALOGUES, n, 42), "paper corpus"
    pois, reviews, _ = build_synthetic(per_cell=100, seed=42)
    kb = KB({p.business_id: p for p in pois}, {r.review_id: r for r in reviews})
    return kb, generate_simulated(kb, n, seed=42), "synthetic (100 POIs per cell)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/bench/live.json"))
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--baselines", default="popularity,tfidf,knowledge,spatial")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    kb, dialogues, source = inputs(args.dialogues)
    names = [n.strip() for n in args.baselines.split(",") if n.strip()]
    systems = {"first_candidate": FirstCandidate(), **build_baselines(names, kb)}
    result: dict[str, Any] = {"source": source, "n_dialogues": len(dialogues), "repeat": args.repeat, "systems": {}}
    for name, system in systems.items():
        converse_many(system, name, dialogues[:10], kb)  # fill per-process caches outside the timing
        walls, turns = [], 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            runs = converse_many(system, name, dialogues, kb)
            walls.append(time.perf_counter() - t0)
            turns = sum(r[1]["n_system_turns"] for r in runs)
        wall = statistics.median(walls)
        result["systems"][name] = {
            "median_wall_s": wall,
            "dialogues_per_s": len(dialogues) / wall,
            "system_turns_per_s": turns / wall,
            "system_turns": turns,
        }
        print(
            f"{name}: {len(dialogues) / wall:.1f} dialogues/s, {turns / wall:.1f} system turns/s "
            f"(median of {args.repeat}, {wall:.2f} s)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
