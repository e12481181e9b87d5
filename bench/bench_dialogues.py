"""Benchmark of the dialogue layer (not a timed test): paper-scale simulated
generation (default 10,000 dialogues on the paper-scale synthetic KB), wall time as the
median of ``--repeat`` runs, the file SHA256 of every run (determinism), the validation pass
rate and the Table-3 dialogue statistics (paper §2.1–2.2, Table 3, Appendix S).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from trace_crs.dialogues.generate import generate_simulated, write_corpus
from trace_crs.dialogues.stats import corpus_stats
from trace_crs.dialogues.validate import summarize
from trace_crs.kb.kbstats import cell_counts
from trace_crs.kb.store import load_kb, sha256_file, write_kb
from trace_crs.kb.synthetic import build_synthetic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", help="KB directory (default: build the synthetic KB, 100 POIs per cell)")
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", help="write the JSON result here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        kb_dir = Path(args.kb) if args.kb else Path(tmp) / "kb"
        if not args.kb:
            pois, reviews, manifest = build_synthetic(per_cell=100, seed=args.seed)
            write_kb(pois, reviews, kb_dir, {**manifest, "counts": cell_counts(pois)})
        kb = load_kb(kb_dir)
        times, hashes = [], []
        for i in range(args.repeat):
            start = time.perf_counter()
            dialogues = generate_simulated(kb, args.n, args.seed)
            out = write_corpus(dialogues, Path(tmp) / f"run{i}" / "dialogues.jsonl")
            times.append(time.perf_counter() - start)
            hashes.append(sha256_file(out))
        start = time.perf_counter()
        summary = summarize(dialogues, kb)
        validate_s = time.perf_counter() - start
    result = {
        "n": args.n,
        "seed": args.seed,
        "generate_s_median": statistics.median(times),
        "generate_s": times,
        "sha256": hashes,
        "deterministic": len(set(hashes)) == 1,
        "validate_s": validate_s,
        "pass_rate": summary["pass_rate"],
        "failure_reasons": summary["reasons"],
        "stats": corpus_stats(dialogues),
    }
    print(json.dumps(result, indent=2, sort_keys=True))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
