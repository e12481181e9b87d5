"""Which live processes load the sentence model (all-MiniLM-L6-v2, the shared loader
:func:`trace_crs.lm.embeddings.minilm`), and the bytes they write: one ``trace-crs converse``
process per baseline with ``--ask``, then one process reading every transcript's questions as the
asking-cost report does (:mod:`trace_crs.report.core_asking_cost`).  Run it with
``PYTHONPATH=<revision>/src`` for two revisions and compare: a process that reads only the
Asking policy's template questions should not load the model, and the outputs should hash the same.

    PYTHONPATH=src python bench/bench_reader_loads.py --kb data/kb/smoke \\
        --dialogues data/dialogues/smoke/dialogues.jsonl --out /tmp/loads
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

CONVERSE = """import atexit, sys
from trace_crs.lm import embeddings
atexit.register(lambda: print("LOADED", embeddings.minilm.cache_info().misses, file=sys.stderr))
from trace_crs.cli import main
sys.exit(main(sys.argv[1:]))
"""
REPORT = """import json, sys
from pathlib import Path
from trace_crs.lm import embeddings
from trace_crs.report.core_asking_cost import asked_mix, asked_open
out = {}
for p in sorted(Path(sys.argv[1]).glob("*/transcripts/*.jsonl")):
    ts = [json.loads(line) for line in p.read_text().splitlines()]
    out[p.name] = [asked_mix(ts), [asked_open(t) for t in ts]]
print(json.dumps(out, sort_keys=True))
print("LOADED", embeddings.minilm.cache_info().misses, file=sys.stderr)
"""


def digest(root: Path) -> str:
    """sha256 (16 hex) of every file under ``root``, in path order."""
    h = hashlib.sha256()
    for p in sorted(q for q in root.rglob("*") if q.is_file()):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def loaded(stderr: str) -> int:
    return int(next(line.split()[1] for line in stderr.splitlines() if line.startswith("LOADED ")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", required=True)
    ap.add_argument("--dialogues", required=True)
    ap.add_argument("--out", type=Path, required=True, help="a new directory for the runs")
    ap.add_argument("--baselines", default="", help="comma-separated (default: every non-LLM baseline)")
    ap.add_argument("--ask", default="1")
    ap.add_argument("--subset", default="", help="seeded subset size (default: every dialogue)")
    args = ap.parse_args()
    from trace_crs.baselines.registry import NON_LLM

    rows = []
    for b in [x for x in args.baselines.split(",") if x] or list(NON_LLM):
        run = subprocess.run(
            [sys.executable, "-c", CONVERSE, "--quiet", "converse", "--kb", args.kb, "--dialogues", args.dialogues]
            + ["--baselines", b, "--seed", "42", "--ask", args.ask, "--out", str(args.out / b)]
            + (["--subset", args.subset] if args.subset else []),
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append({"process": f"converse {b}", "minilm_loaded": loaded(run.stderr), "sha256": digest(args.out / b)})
    rep = subprocess.run([sys.executable, "-c", REPORT, str(args.out)], capture_output=True, text=True, check=True)
    sha = hashlib.sha256(rep.stdout.encode()).hexdigest()[:16]
    rows.append({"process": "asking-cost readings", "minilm_loaded": loaded(rep.stderr), "sha256": sha})
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
