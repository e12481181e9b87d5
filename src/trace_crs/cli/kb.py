"""`trace-crs kb build|stats|calibrate|realism`: build a KB directory (synthetic or Yelp),
summarise it (paper §2.1, Table 3), calibrate the synthetic writer on Yelp, and compare its
reviews with real ones (``kb.realism``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_text
from trace_crs.cli import add_group
from trace_crs.cli.arguments import KB_HELP, add_json_out, add_kb, add_out, add_seed, add_yelp_dir
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
    from trace_crs.kb.calibration import yelp_length_quantiles, yelp_mention_rates

    if args.lengths:  # the length profile of data/review_lengths.yaml
        text = json.dumps(yelp_length_quantiles(args.yelp_dir), indent=2, sort_keys=True) + "\n"
        if args.out:
            write_text(args.out, text)
        print(text if args.global_json or not args.out else f"length quantiles -> {args.out}")
        return 0
    rates = yelp_mention_rates(args.yelp_dir, args.min_reviews)
    text = json.dumps(rates, indent=2, sort_keys=True) + "\n"
    if args.out:
        write_text(args.out, text)
    print(text if args.global_json or not args.out else f"{len(rates) - 1} facet values -> {args.out}")
    return 0


def _realism(args: argparse.Namespace) -> int:
    from trace_crs.atomic import commit_files, write_json, write_text
    from trace_crs.kb.realism import compare, kb_corpus, to_markdown, yelp_corpus

    if not Path(args.kb, "reviews.jsonl").is_file():
        raise FileNotFoundError(f"{args.kb}: KB directory with reviews.jsonl not found")
    reference = yelp_corpus(args.reference) if args.reference else None
    report = compare(kb_corpus(args.kb), reference, seed=args.seed, n_per_class=args.n_per_class)
    report["kb"] = str(args.kb)
    if reference is not None:  # the discriminator's balanced sample caps at the smaller class
        from trace_crs.cli.guard import warn_capped

        warn_capped("--n-per-class", args.n_per_class, report["discriminator"]["n_per_class"], "reviews per class")
    report["reference_dir"] = str(args.reference) if args.reference else None
    writers: dict[str | Path, Any] = {}  # the JSON and the data card's table: one commit
    if args.out:
        writers[args.out] = lambda t: write_json(report, t, indent=2)
    if args.markdown:
        writers[args.markdown] = lambda t: write_text(t, to_markdown(report))
    if writers:
        commit_files(writers, marker=args.out or args.markdown)
    syn, ref = report["synthetic"], report.get("reference")
    for key in (
        "n_reviews",
        "length_mean",
        "sentences_per_review",
        "type_token_ratio",
        "distinct_bigram_rate",
        "facet_sentence_share",
        "distinct_text_rate",
        "texts_shared_by_pois",
    ):
        print(f"{key:24s} {syn[key]:>10.3f}" + (f" {ref[key]:>10.3f}" if ref else ""))
    if ref:
        print(f"{'length_ks':24s} {report['length_ks']:>10.3f}")
        print(f"{'discriminator_auc':24s} {report['discriminator']['auc']:>10.3f}")
    return 0


def _degrade(args: argparse.Namespace) -> int:
    """``kb degrade``: the KB with Yelp's attribute missingness applied (``kb.missingness``)."""
    from trace_crs.errors import UsageError
    from trace_crs.kb.missingness import coverage_rates, degrade

    src, out = Path(args.kb).resolve(), Path(args.out).resolve()
    if out == src or src in out.parents:
        raise UsageError(f"--out {args.out} would overwrite the input KB {args.kb}; choose another directory")
    kb = load_kb(args.kb)
    pois = degrade(list(kb.pois.values()), coverage_rates(), seed=args.seed)
    manifest = {k: v for k, v in kb.manifest.items() if k != "files"}
    manifest.update(degraded_from=kb.sha256, missingness_seed=args.seed, missingness="kb/data/attribute_coverage.yaml")
    write_kb(pois, sorted(kb.reviews.values(), key=lambda r: r.review_id), args.out, manifest)
    print(f"kb degrade: {len(pois)} POIs with Yelp attribute missingness -> {args.out}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``kb build``, ``kb stats``, ``kb calibrate``, ``kb realism`` and ``kb degrade``."""
    sub = add_group(subparsers, "kb", "build and summarise the POI knowledge base")
    build = sub.add_parser("build", help="build a KB directory (pois.jsonl, reviews.jsonl, MANIFEST.json)")
    build.add_argument("--source", choices=("synthetic", "yelp"), default="synthetic")
    add_yelp_dir(build, "directory with the Yelp Open Dataset business/review JSON files")
    build.add_argument("--per-cell", type=int, default=100, help="POIs per city x type (default 100)")
    add_seed(build)
    add_out(build, "output KB directory", required=True)
    build.set_defaults(func=_build)
    cal = sub.add_parser("calibrate", help="per-review facet mention rates of a Yelp bundle (for the review writer)")
    add_yelp_dir(cal, "directory with the Yelp business/review JSON files", required=True)
    cal.add_argument("--min-reviews", type=int, default=20, help="keep facet values seen on at least this many reviews")
    lengths = "instead: review-length quantiles after truncation at 500 chars (data/review_lengths.yaml)"
    cal.add_argument("--lengths", action="store_true", help=lengths)
    add_out(cal, "write the rates as JSON here")
    cal.set_defaults(func=_calibrate)
    real = sub.add_parser("realism", help="synthetic vs real review statistics and a discriminator's AUC")
    add_kb(real, required=True)
    real.add_argument("--reference", help="Yelp bundle directory (yelp_academic_dataset_review.json) to compare with")
    add_out(real, "write the report (aggregate statistics only) as JSON here")
    real.add_argument("--markdown", help="also write the data card's table (Markdown) here")
    add_seed(real)
    real.add_argument(
        "--n-per-class", type=int, default=2000, help="reviews per class for the discriminator (with --reference)"
    )
    real.set_defaults(func=_realism)
    stats = sub.add_parser("stats", help="Table-3-style summary of a KB directory")
    stats.add_argument("kb_dir", nargs="?", help=f"{KB_HELP} (or --kb)")
    add_kb(stats)
    add_json_out(stats, "also write the statistics as JSON to this path")
    stats.set_defaults(func=_stats)
    degrade = sub.add_parser("degrade", help="copy a KB with Yelp's attribute missingness applied (kb.missingness)")
    add_kb(degrade, "input KB directory", required=True)
    add_out(degrade, "output KB directory (not the input)", required=True)
    add_seed(degrade)
    degrade.set_defaults(func=_degrade)
