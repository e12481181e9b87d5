"""Benchmark of the KB layer (not a timed test): the paper-scale synthetic build
(8 cities × 3 types × 100 POIs) — generation plus ``write_kb`` — timed as the median of
``--repeat`` runs, with the Table-3 statistics of the result (paper §2.1, Table 3); and the
command a user runs, ``trace-crs kb build --out <temp dir>`` at its default size, timed as a
whole process (start-up included) against the ≤ 60 s budget of the default KB build.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trace_crs.kb.kbstats import cell_counts, summarize
from trace_crs.kb.store import load_kb, write_kb
from trace_crs.kb.synthetic import build_synthetic


def build_once(out: Path, per_cell: int, seed: int) -> float:
    """Seconds for one synthetic build written to ``out``."""
    start = time.perf_counter()
    pois, reviews, manifest = build_synthetic(per_cell=per_cell, seed=seed)
    manifest.update(counts=cell_counts(pois), n_pois=len(pois), n_reviews=len(reviews))
    write_kb(pois, reviews, out, manifest)
    return time.perf_counter() - start


CLI_BUDGET_S = 60.0  # the default KB build's budget (a newcomer's first `make paper`)


def cli_build_seconds(out: Path) -> float:
    """Wall seconds of ``trace-crs kb build --out out`` (default source and size), a fresh process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "trace_crs", "kb", "build", "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="write the JSON result here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        times = [build_once(Path(tmp) / f"kb{i}", args.per_cell, args.seed) for i in range(args.repeat)]
        hashes = {
            json.loads((Path(tmp) / f"kb{i}" / "MANIFEST.json").read_text())["files"]["pois.jsonl"]["sha256"]
            for i in range(args.repeat)
        }
        stats = summarize(load_kb(Path(tmp) / "kb0"))
        load = os.getloadavg()[0]
        cli_s = cli_build_seconds(Path(tmp) / "cli")
    result = {
        "per_cell": args.per_cell,
        "seed": args.seed,
        "repeat": args.repeat,
        "build_seconds_median": statistics.median(times),
        "build_seconds": times,
        "identical_across_repeats": len(hashes) == 1,
        "cli_build_seconds": round(cli_s, 2),
        "cli_budget_seconds": CLI_BUDGET_S,
        "cli_within_budget": cli_s <= CLI_BUDGET_S,
        "cli_load_1min": round(load, 2),
        "stats": {k: v for k, v in stats.items() if k != "counts"},
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
