"""`trace-crs human` commands: the paper's annotation study (seed 000 App. K).

* ``trace-crs human agree --labels LABELS.jsonl [--key KEY.jsonl] [--n-boot 1000] [--seed 42]
  --out DIR`` — Tables 10–15 twins from collected labels (:mod:`trace_crs.human.study`):
  ``DIR/<table>.parquet`` and ``DIR/summary.json`` (written last).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from trace_crs.atomic import commit_files
from trace_crs.human.study import analyse


def _agree(args: argparse.Namespace) -> int:
    frames = analyse(args.labels, args.key, args.n_boot, args.seed)
    out: Path = args.out
    summary = {
        "labels": str(args.labels),
        "key": str(args.key) if args.key else None,
        "n_boot": args.n_boot,
        "seed": args.seed,
        "tables": sorted(frames),
        **{k: (None if v != v else v) for k, v in frames["alphas"].iloc[0].to_dict().items()},
    }
    writers = {
        out / f"{name}.parquet": (lambda t, f=frame: f.to_parquet(t, index=False)) for name, frame in frames.items()
    }
    writers[out / "summary.json"] = lambda t: t.write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n")
    commit_files(writers, out / "summary.json")
    if not args.quiet:
        print(frames["table10"].to_string(index=False))
        print(frames["alphas"].to_string(index=False))
    return 0


def register(subparsers) -> None:
    """Add ``human agree``."""
    group = subparsers.add_parser("human", help="human evaluation kit (App. K): agreement and validation tables")
    sub = group.add_subparsers(dest="human_command", required=True)
    agree = sub.add_parser("agree", help="Krippendorff alpha, leave-out, Tables 10-15 twins from a labels file")
    agree.add_argument("--labels", type=Path, required=True, help="labels JSON lines (Task 1 and Task 2)")
    agree.add_argument("--key", type=Path, help="the sampler's key file (item -> baseline, metric scores)")
    agree.add_argument("--n-boot", type=int, default=1000)
    agree.add_argument("--seed", type=int, default=42)
    agree.add_argument("--quiet", action="store_true", help="no tables on stdout")
    agree.add_argument("--out", type=Path, required=True, help="output directory")
    agree.set_defaults(func=_agree)
