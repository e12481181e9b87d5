"""`trace-crs dialogues` commands: generate (:mod:`trace_crs.cli.dialogues_generate`), validate, stats,
leakage, unsolvable, release, hydrate.

Every command that reads a corpus takes it as ``--dialogues F`` (the spelling of every other
command) or, for compatibility, as the positional ``F``; JSON outputs are ``--out`` (``--json``
is the older spelling)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, cast

from trace_crs.atomic import write_text
from trace_crs.cli import add_group
from trace_crs.cli.arguments import (
    DIALOGUES_HELP,
    KB_HELP,
    add_dialogues,
    add_json_out,
    add_kb,
    add_n,
    add_out,
    add_seed,
)
from trace_crs.cli.dialogues_generate import add_generate
from trace_crs.errors import DataError, UsageError

GENERATED_FROM = f"{KB_HELP} the dialogues were generated from"


def load_kb_dir(path: str):
    """The KB in directory ``path``; FileNotFoundError (exit 2) when it holds no ``pois.jsonl``."""
    from trace_crs.kb.store import load_kb

    if not Path(path, "pois.jsonl").exists():
        raise FileNotFoundError(f"{path}: not a KB directory (no pois.jsonl); build one with `trace-crs kb build`")
    return load_kb(path)


def _validate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import record_validated
    from trace_crs.dialogues.validate import summarize
    from trace_crs.kb.store import iter_jsonl

    # raw records: summarize() checks the schema once per dialogue and reports failures as "schema"
    dialogues = [record for _, record in iter_jsonl(args.file)]
    if not dialogues:  # "0 passed (nan%)" must not be recorded as a validated corpus
        raise DataError("no dialogues (an empty corpus)", file=str(args.file), field="<file>")
    kb = load_kb_dir(args.kb)
    summary = summarize(dialogues, kb)
    if args.global_json:
        print(json.dumps(summary, sort_keys=True))
        if summary["passed"] != summary["n"]:
            return 1
        record_validated(args.file)
        return 0
    print(f"validated {summary['n']} dialogues: {summary['passed']} passed ({summary['pass_rate']:.1%})")
    for reason, row in summary["reasons"].items():
        print(f"  {reason:24s} {row['dialogues']:6d}  {row['share']:.1%}")
    for did, fails in list(summary["failed"].items())[: args.show]:
        print(f"  {did}: {'; '.join(fails)[:300]}")
    if summary["passed"] != summary["n"]:
        return 1
    record_validated(args.file)
    return 0


def _stats(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.stats import corpus_stats

    dialogues = load_dialogues(args.file)
    stats = corpus_stats(dialogues)
    if args.kb:  # quote specificity and travellers' language need the KB
        from trace_crs.dialogues.stats import evidence_stats

        stats.update(evidence_stats(dialogues, load_kb_dir(args.kb), str(args.file)))
    if args.json:
        write_text(args.json, json.dumps(stats, indent=2, sort_keys=True) + "\n")
    if args.global_json:
        print(json.dumps(stats, sort_keys=True))
        return 0
    for key, value in stats.items():
        print(f"{key:28s} {value:.3f}" if isinstance(value, float) else f"{key:28s} {value}")
    return 0


def _leakage(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.leakage import decoder_audit, persona_information
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb import load_kb

    dialogues = load_dialogues(args.file)
    report = {
        "decoder": decoder_audit(dialogues, load_kb(args.kb)),
        "persona_information": persona_information(dialogues, seed=args.seed),
    }
    if args.json:
        write_text(args.json, json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.global_json:
        print(json.dumps(report, sort_keys=True))
    if args.global_json or args.global_quiet:
        return 0
    for key, value in report["decoder"].items():
        print(f"{key:28s} {value:.3f}" if isinstance(value, float) else f"{key:28s} {value}", file=sys.stderr)
    for facet, v in report["persona_information"].items():
        print(f"MI persona->{facet:12s} {v['mi_bits']:.4f} bits (control {v['control_bits']:.4f})", file=sys.stderr)
    return 0


def _unsolvable(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.unsolvable import build_unsolvable
    from trace_crs.kb.store import dump_jsonl

    # build_unsolvable reads each dialogue as a plain mapping of the schema's fields
    corpus = cast("list[dict[str, Any]]", load_dialogues(args.file))
    items = build_unsolvable(load_kb_dir(args.kb), corpus, args.n, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    dump_jsonl(items, args.out)
    print(
        f"unsolvable: {len(items)} items {dict(sorted(Counter(i['unsolvable']['reason'] for i in items).items()))} "
        f"-> {args.out}",
        file=sys.stderr,
    )
    if len(items) < args.n:  # the KB left a reason short (build_unsolvable): said, never silent
        print(
            f"unsolvable: warning: --n {args.n} asked, {len(items)} built (the KB cannot fill every reason)",
            file=sys.stderr,
        )
    return 0


def _release(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.release import release_dialogue
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb.store import dump_jsonl

    kb = load_kb_dir(args.kb)
    dump_jsonl([release_dialogue(d, kb) for d in load_dialogues(args.file)], args.out)  # empty: exit 3
    return 0


def _hydrate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.release import HydrationError, hydrate_dialogue
    from trace_crs.dialogues.schema import check_dialogue
    from trace_crs.errors import DataError
    from trace_crs.kb.store import dump_jsonl, iter_jsonl
    from trace_crs.release.records import RELEASED_DIALOGUE, SpecError, check

    kb = load_kb_dir(args.kb)
    out = []
    for line, rec in iter_jsonl(args.file):
        try:  # the pointer fields hydration reads, typed first (a list record was a traceback)
            check(rec, RELEASED_DIALOGUE, "")
        except SpecError as exc:
            raise DataError(exc.problem, file=args.file, line=line, field=exc.field.lstrip(".") or "<record>") from None
        try:
            out.append(check_dialogue(hydrate_dialogue(rec, kb), args.file, line))
        except HydrationError as exc:  # the KB does not hold what the release points to: bad data
            raise DataError(str(exc), file=args.file, line=line, field="citations") from None
    if not out:
        raise DataError("no dialogues (an empty corpus)", file=args.file, field="<file>")
    dump_jsonl(out, args.out)
    return 0


def _corpus_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help=f"{DIALOGUES_HELP} (or --dialogues)")
    add_dialogues(p, dest="file_flag")
    p.set_defaults(_resolve_file=True)


def resolve_corpus(args: argparse.Namespace) -> None:
    """Fill ``args.file`` from ``--dialogues`` (exactly one of the two spellings is required)."""
    if getattr(args, "_resolve_file", False):
        if args.file and args.file_flag and args.file != args.file_flag:
            raise UsageError("give the dialogues file once (positional or --dialogues)")
        args.file = args.file or args.file_flag
        if not args.file:
            raise UsageError("a dialogues file is required (--dialogues F)")


def register(subparsers) -> None:
    """Add the ``dialogues`` command group."""
    sub = add_group(subparsers, "dialogues", "generate, validate and release the dialogue corpus")
    add_generate(sub)
    p = sub.add_parser("validate", help="validate dialogues against the KB (exit 1 when any fails)")
    _corpus_arg(p)
    add_kb(p, GENERATED_FROM, required=True)
    p.add_argument("--show", type=int, default=5, help="failed dialogues to list")
    p.set_defaults(func=_validate)
    p = sub.add_parser("stats", help="Table-3 dialogue statistics")
    _corpus_arg(p)
    add_kb(p, f"{GENERATED_FROM} (adds quote specificity and negated/disjunctive preferences)")
    add_json_out(p, "also write the statistics to this JSON file")
    p.set_defaults(func=_stats)
    p = sub.add_parser("leakage", help="audit: keyword-decoder recovery of the acceptable sets, persona information")
    _corpus_arg(p)
    add_kb(p, GENERATED_FROM, required=True)
    add_seed(p, "seed of the shuffled-persona control")
    add_json_out(p, "write the audit as JSON here")
    p.set_defaults(func=_leakage)
    p = sub.add_parser("unsolvable", help="build the unsolvable set (requests no POI satisfies) from the KB and corpus")
    _corpus_arg(p)
    add_kb(p, GENERATED_FROM, required=True)
    add_n(p, "items, split evenly over the four reasons", default=300)
    add_seed(p, "seed of the source dialogues and extra constraints")
    add_out(p, "unsolvable items (JSON lines, dialogue schema)", required=True)
    p.set_defaults(func=_unsolvable)
    p = sub.add_parser("release", help="replace verbatim quotes by [Q:N] placeholders + pointers")
    _corpus_arg(p)
    add_kb(p, f"{KB_HELP} the quotes come from", required=True)
    add_out(p, "released corpus (JSON lines)", required=True)
    p.set_defaults(func=_release)
    p = sub.add_parser("hydrate", help="restore released quotes from a KB")
    _corpus_arg(p)
    add_kb(p, f"{KB_HELP} holding the quoted reviews", required=True)
    add_out(p, "hydrated corpus (JSON lines)", required=True)
    p.set_defaults(func=_hydrate)
