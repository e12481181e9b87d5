"""`trace-crs kb build|stats`: build a KB directory (synthetic or Yelp) and summarise it
(paper §2.1, Table 3)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from trace_crs.atomic import write_text
from trace_crs.kb.kbstats import cell_counts, format_summary, summarize
from trace_crs.kb.store import load_kb, write_kb


def _build(args: argparse.Namespace) -> int:
    if args.source == "yelp":
        if not args.yelp_dir:
            raise ValueError("--source yelp needs --yelp-dir DIR (holding the yelp_academic_dataset_*.json files)")
        from trace_crs.kb.yelp import build_yelp
        pois, reviews, manifest = build_yelp(args.yelp_dir, per_cell=args.per_cell, seed=args.seed)
    else:
        from trace_crs.kb.synthetic import build_synthetic
        pois, reviews, manifest = build_synthetic(per_cell=args.per_cell, seed=args.seed)
    manifest.update(counts=cell_counts(pois), n_pois=len(pois), n_reviews=len(reviews))
    manifest = write_kb(pois, reviews, args.out, manifest)
    print(f"kb: {len(pois)} POIs, {len(reviews)} reviews -> {args.out}")
    for cell, missing in manifest.get("shortfalls", {}).items():
        print(f"kb: shortfall {cell}: {missing} POIs short of --per-cell {args.per_cell}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    args.kb_dir = args.kb_dir or args.kb
    if not args.kb_dir:
        raise FileNotFoundError("a KB directory is required (--kb DIR)")
    if not Path(args.kb_dir).is_dir():
        raise FileNotFoundError(f"{args.kb_dir}: KB directory not found")
    stats = summarize(load_kb(args.kb_dir))
    print(json.dumps(stats, sort_keys=True, ensure_ascii=False) if args.global_json else format_summary(stats))
    if args.json:
        write_text(args.json, json.dumps(stats, sort_keys=True, indent=2, ensure_ascii=False) + "\n")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from trace_crs.kb.calibration import yelp_mention_rates
    rates = yelp_mention_rates(args.yelp_dir, args.min_reviews)
    text = json.dumps(rates, indent=2, sort_keys=True) + "\n"
    if args.out:
        write_text(args.out, text)
    print(text if args.global_json or not args.out else f"{len(rates) - 1} facet values -> {args.out}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``kb build``, ``kb stats`` and ``kb calibrate``."""
    kb = subparsers.add_parser("kb", help="build and summarise the POI knowledge base")
    sub = kb.add_subparsers(dest="kb_command", required=True)
    build = sub.add_parser("build", help="build a KB directory (pois.jsonl, reviews.jsonl, MANIFEST.json)")
    build.add_argument("--source", choices=("synthetic", "yelp"), default="synthetic")
    build.add_argument("--yelp-dir", help="directory with the Yelp Open Dataset business/review JSON files")
    build.add_argument("--per-cell", type=int, default=100, help="POIs per city x type (default 100)")
    build.add_argument("--seed", type=int, default=42)
    build.add_argument("--out", required=True, help="output KB directory")
    build.set_defaults(func=_build)
    cal = sub.add_parser("calibrate", help="per-review facet mention rates of a Yelp bundle (for the review writer)")
    cal.add_argument("--yelp-dir", required=True, help="directory with the Yelp business/review JSON files")
    cal.add_argument("--min-reviews", type=int, default=20, help="keep facet values seen on at least this many reviews")
    cal.add_argument("--out", help="write the rates as JSON here")
    cal.set_defaults(func=_calibrate)
    stats = sub.add_parser("stats", help="Table-3-style summary of a KB directory")
    stats.add_argument("kb_dir", nargs="?", help="KB directory (or --kb)")
    stats.add_argument("--kb", help="KB directory")
    stats.add_argument("--out", "--json", dest="json", help="also write the statistics as JSON to this path")
    stats.set_defaults(func=_stats)
