"""Benchmark of the metrics layer (not a timed test): ``score_predictions`` on
``--dialogues`` synthetic dialogues (default 10,000, the paper's corpus size) × one baseline,
all non-model metrics (no entailment, no judge), median of ``--repeat`` runs with the
fuzzy-match caches cleared before each run (wall and process-CPU seconds: the machine is
shared, so CPU seconds are the steadier number).  Inputs are synthesised here: the embedded
synthetic KB (``kb.synthetic``), dialogues of 2 recommend + 1 compare turns with one
rejection, reference turns quoting the gold POI's reviews, and predictions that rank the
8 candidates in a seeded random order and quote (sometimes corrupt) spans of the top POI.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from trace_crs.kb import KB
from trace_crs.kb.synthetic import build_synthetic
from trace_crs.metrics import grounding
from trace_crs.metrics.score import score_predictions


def _turn(
    tid: int, role: str, action: str, text: str, gold: list[str] | None = None, alts: list[str] | None = None
) -> dict:
    t = {
        "turn_id": tid,
        "role": role,
        "action": action,
        "text": text,
        "referenced_poi_ids": gold or [],
        "referenced_review_ids": [],
        "citations": [],
    }
    if gold is not None:
        t.update(gold_poi_ids=gold, acceptable_alternative_poi_ids=alts or [])
    return t


def _quote(kb: KB, pid: str, rng: np.random.Generator, label: str, corrupt: bool = False) -> str:
    reviews = kb.reviews_of(pid)
    text = reviews[int(rng.integers(len(reviews)))].text
    start = int(rng.integers(max(1, len(text) - 40)))
    span = text[start : start + 40].replace('"', "'")
    if corrupt:
        span = span[::-1]
    return f'"{span}" [{label}]'


def synthesise(kb: KB, n: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``n`` dialogues and one baseline's predictions for them."""
    rng = np.random.default_rng(seed)
    slices = [(c, t) for c in kb.cities() for t in ("restaurant", "hotel", "attraction") if len(kb.pois_in(c, t)) >= 8]
    dialogues, preds = [], []
    for i in range(n):
        city, ptype = slices[i % len(slices)]
        cands = list(rng.choice(kb.pois_in(city, ptype), 8, replace=False))
        g1, g2, g3, g4 = cands[:4]
        did = f"crs_yelp_{i + 1:05d}"
        turns = [
            _turn(1, "user", "greet_and_seek", "Looking for something cheap and quiet with parking."),
            _turn(2, "system", "recommend", f"Try {g1}: {_quote(kb, g1, rng, 'R1')} cozy.", [g1], [g2]),
            _turn(3, "user", "reject_and_refine", "Too far, something romantic instead."),
            _turn(4, "system", "recommend", f"Then {g2}: {_quote(kb, g2, rng, 'R1')}.", [g2]),
            _turn(5, "user", "provide_preference", "Compare two for me."),
            _turn(6, "system", "compare", f"{g3} {_quote(kb, g3, rng, 'R1')} or {g4}.", [g3, g4]),
            _turn(7, "user", "accept", "Thanks!"),
            _turn(8, "system", "farewell", "Enjoy."),
        ]
        dialogues.append(
            {"dialogue_id": did, "scenario": {"city": city, "poi_type": ptype, "difficulty": "easy"}, "turns": turns}
        )
        for tid in (2, 4, 6):
            ranked = [str(x) for x in rng.permutation(cands)]
            text = (
                f"I recommend {ranked[0]}, a quiet spot with parking. {_quote(kb, ranked[0], rng, 'R1')} "
                f"and {_quote(kb, ranked[0], rng, 'R2', corrupt=rng.random() < 0.1)}. Great value."
            )
            preds.append({"dialogue_id": did, "turn_id": tid, "ranked_poi_ids": ranked, "text": text})
    return dialogues, preds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=10_000)
    parser.add_argument("--per-cell", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="write the JSON result here")
    args = parser.parse_args()
    pois, reviews, _ = build_synthetic(per_cell=args.per_cell, seed=args.seed)
    kb = KB(pois={p.business_id: p for p in pois}, reviews={r.review_id: r for r in reviews})
    dialogues, preds = synthesise(kb, args.dialogues, args.seed)
    times, cpu, aggs = [], [], []
    for _ in range(args.repeat):
        grounding.quote_match.cache_clear()
        grounding.is_verbatim.cache_clear()
        start, start_cpu = time.perf_counter(), time.process_time()
        scores = score_predictions(kb, dialogues, preds)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        aggs.append(json.dumps(scores.aggregate, sort_keys=True))
    result = {
        "n_dialogues": args.dialogues,
        "n_turns": scores.aggregate["n_turns"],
        "repeat": args.repeat,
        "score_seconds_median": statistics.median(times),
        "score_seconds": times,
        "score_cpu_seconds_median": statistics.median(cpu),
        "turns_per_second": scores.aggregate["n_turns"] / statistics.median(times),
        "identical_across_repeats": len(set(aggs)) == 1,
        "metrics": scores.aggregate["metrics"],
    }
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")


if __name__ == "__main__":
    main()
