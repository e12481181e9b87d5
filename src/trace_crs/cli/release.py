"""`trace-crs release import|export`: the paper's official release layout (paper §2.1 Release,
Appendices D and H; see ``trace_crs.release``)."""

from __future__ import annotations

import argparse
import json
import sys

from trace_crs.cli import add_group
from trace_crs.cli.arguments import add_dialogues, add_kb, add_out, add_seed, add_yelp_dir


def _import(args: argparse.Namespace) -> int:
    from trace_crs.release.consistency import summary
    from trace_crs.release.importer import import_release

    report = import_release(
        args.dataset, args.pois, args.splits, args.yelp_dir, args.out, seed=args.seed, strict=args.strict
    )
    c = report["counts"]
    if getattr(args, "global_json", False):
        print(json.dumps(report, sort_keys=True))
    elif not getattr(args, "global_quiet", False):
        absent = [f["field"] for f in report["fields"] if f["status"] in ("absent", "kb")]
        print(
            f"release import: {c['dialogues']} dialogues, {c['quotes']} quotes hydrated and verified, "
            f"{c['pois']} POIs, {c['reviews']} reviews -> {args.out} (not in the release: {', '.join(absent)})",
            file=sys.stderr,
        )
    if c["quotes_without_checksums"]:
        print(
            f"release import: warning: {c['quotes_without_checksums']} quotes carry no checksums: their offsets were "
            "range-checked but the spans could not be verified (mapping_report.json)",
            file=sys.stderr,
        )
    if report.get("ignored_split_dir_files"):
        print(
            f"release import: warning: --splits {args.splits} holds files that are not split lists, ignored: "
            f"{', '.join(report['ignored_split_dir_files'][:5])} (split lists are <train|val|test>_dialogue_ids.json)",
            file=sys.stderr,
        )
    found = sum(k["count"] for f in report["consistency"].values() for k in f.values())
    if found or not (getattr(args, "global_quiet", False) or getattr(args, "global_json", False)):
        warn = "warning: imported with " if found else ""
        print(
            f"release import: {warn}consistency: {summary(report['consistency'])} (mapping_report.json)",
            file=sys.stderr,
        )
    return 0


def _export(args: argparse.Namespace) -> int:
    from trace_crs.release.exporter import export_release

    report = export_release(args.kb, args.dialogues, args.out, bundle=args.yelp_bundle)
    if getattr(args, "global_json", False):
        print(json.dumps(report, sort_keys=True))
    elif not getattr(args, "global_quiet", False):
        print(
            f"release export: {report['counts']['dialogues']} dialogues, {report['counts']['quotes']} quotes as "
            f"[Q:N] placeholders -> {args.out} (not exported: "
            f"{', '.join(f['field'] for f in report['not_exported'])})",
            file=sys.stderr,
        )
    return 0


def register(subparsers) -> None:
    sub = add_group(subparsers, "release", "import the paper's official release / export ours in its layout")
    p = sub.add_parser(
        "import", help="map crs_dataset.json + poi_knowledge_base.json + splits, hydrated from a Yelp bundle"
    )
    p.add_argument("--dataset", required=True, help="crs_dataset.json")
    p.add_argument("--pois", required=True, help="poi_knowledge_base.json")
    p.add_argument("--splits", required=True, help="directory with test_dialogue_ids.json (train_/val_ optional)")
    add_yelp_dir(p, "Yelp Open Dataset bundle (yelp_academic_dataset_{business,review}.json)", required=True)
    add_out(p, "output directory: kb/, dialogues.jsonl, mapping_report.json", required=True)
    add_seed(p, "seed of the re-drawn 16/32 pools")
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse (exit 4) a release with a quote citing a review its turn does not reference, a label on no "
        "quote, a repeated quote number or offsets in UTF-16 units (by default: imported and counted in the report)",
    )
    p.set_defaults(func=_import)
    p = sub.add_parser("export", help="write our corpus in the official layout ([Q:N] placeholders, cards, splits)")
    add_kb(p, required=True)
    add_dialogues(p, required=True)
    add_out(p, "output directory (crs_dataset.json, poi_knowledge_base.json, splits/)", required=True)
    p.add_argument(
        "--yelp-bundle",
        dest="yelp_bundle",
        help="also write a synthetic KB as a Yelp-format bundle here (refused for a Yelp-built KB)",
    )
    p.set_defaults(func=_export)
