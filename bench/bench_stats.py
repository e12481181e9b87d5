"""Benchmark of the stats/oracle layer (not a timed test).

* bootstrap: B = 1000 resamples, Table 21's 8 pairs plus 2 more (10), 10,000 dialogues;
* oracle: 10,000 dialogues × 14 baselines × 20 budgets (budget curve, exact MCKP with the
  lexicographic tie-break of ``trace_crs.oracle.mckp``), quality on a 1/6 grid (means of 0/1-like
  metrics) and, separately, continuous quality; both against the 10 s target.

Synthetic inputs with seed 42; prints the median of ``--repeat`` runs and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from trace_crs.oracle import budget_curve, oracle_instance
from trace_crs.stats.bootstrap import TABLE21_PAIRS, bootstrap_pairs

PAIRS = list(TABLE21_PAIRS) + [("dense", "tfidf", "recall@1"), ("spatial", "tfidf", "gs")]
BASELINES = sorted({x for a, b, _ in PAIRS for x in (a, b)})


def per_turn_frame(n_dialogues: int, seed: int) -> pd.DataFrame:
    """~3 turns per dialogue for every baseline in PAIRS, metrics in [0, 1]."""
    rng = np.random.default_rng(seed)
    turns = rng.integers(1, 6, n_dialogues)
    dialogue = np.repeat([f"d{i:05d}" for i in range(n_dialogues)], turns)
    parts = []
    for base in BASELINES:
        parts.append(
            pd.DataFrame(
                {
                    "dialogue_id": dialogue,
                    "turn_id": 2,
                    "baseline": base,
                    **{m: rng.random(dialogue.size) for m in ("recall@1", "mrr", "cgs", "gs", "cd")},
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def oracle_table(n_dialogues: int, n_baselines: int, seed: int, grid: bool = True) -> pd.DataFrame:
    """Quality on a 1/6 grid (or continuous) and log-normal $ costs; 7 free baselines."""
    rng = np.random.default_rng(seed)
    q = rng.random((n_dialogues, n_baselines))
    q = np.round(q * 6) / 6 if grid else q
    c = rng.lognormal(-6, 1, (n_dialogues, n_baselines)) * (np.arange(n_baselines) >= 7)
    ids = np.repeat([f"d{i:05d}" for i in range(n_dialogues)], n_baselines)
    return pd.DataFrame(
        {
            "dialogue_id": ids,
            "baseline": np.tile([f"b{j:02d}" for j in range(n_baselines)], n_dialogues),
            "quality": q.ravel(),
            "cost": c.ravel(),
        }
    )


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/bench/stats.json"))
    parser.add_argument("--dialogues", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frame = per_turn_frame(args.dialogues, 42)
    boot = timed(lambda: bootstrap_pairs(frame, PAIRS, n_boot=1000, seed=42), args.repeat)
    table = oracle_table(args.dialogues, 14, 42)
    inst = oracle_instance(table)
    curves = {}
    orc = timed(lambda: curves.update(grid=budget_curve(inst, n_points=20)[0]), args.repeat)
    solve = timed(lambda: oracle_instance(table), 1)
    cont = oracle_instance(oracle_table(args.dialogues, 14, 42, grid=False))
    orc_cont = timed(lambda: curves.update(continuous=budget_curve(cont, n_points=20)[0]), args.repeat)
    result = {
        "n_dialogues": args.dialogues,
        "bootstrap_10pairs_B1000_s": boot,
        "bootstrap_target_s": 10.0,
        "oracle_14x20_s": orc,
        "oracle_target_s": 10.0,
        "oracle_continuous_quality_14x20_s": orc_cont,
        "oracle_table_validation_s": solve,
        "oracle_solvers": curves["grid"]["solver"].tolist(),
        "oracle_continuous_solvers": curves["continuous"]["solver"].tolist(),
    }
    for k, v in result.items():
        print(f"{k}: {v}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
