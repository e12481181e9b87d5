"""`trace-crs dialogues` commands: generate, validate, stats, leakage, release, hydrate.

Every command that reads a corpus takes it as ``--dialogues F`` (the spelling of every other
command) or, for compatibility, as the positional ``F``; JSON outputs are ``--out`` (``--json``
is the older spelling)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, cast

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import write_text
from trace_crs.cli import add_group
from trace_crs.errors import DataError, UsageError


def _load_kb(path: str):
    from trace_crs.kb.store import load_kb

    if not Path(path, "pois.jsonl").exists():
        raise FileNotFoundError(f"{path}: not a KB directory (no pois.jsonl); build one with `trace-crs kb build`")
    return load_kb(path)


def _llm_lm_config(args: argparse.Namespace):
    """The local generator's LMConfig: weights of ``local[:weights]``, the generator's decoding
    defaults (``llm.LOCAL_LM``), then ``--set [lm.]field=value`` overrides."""
    from trace_crs.dialogues.llm import LOCAL_LM
    from trace_crs.lm.config import resolve_lm_config

    weights = args.model.partition(":")[2] or "qwen2.5-coder-1.5b-instruct-q4_k_m"
    overrides = [kv.removeprefix("lm.") for kv in args.set or []]
    return resolve_lm_config({"model": "local", "weights": weights, **LOCAL_LM}, overrides, "--set")


def reason_key(reason: str) -> str:
    """Failure reason name of a log entry: ``"quote_mismatch: turn 4: R1"`` → ``quote_mismatch``;
    parse errors keep their exception type (``parse: LMTimeoutError``)."""
    parts = reason.split(": ")
    return ": ".join(parts[:2]) if parts[0] == "parse" and len(parts) > 1 else parts[0]


def acceptance(logs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per tier (and ``all``): dialogues attempted, accepted, acceptance rate, LM calls, and
    the failure reasons of every failed attempt (accepted dialogues' retries included),
    counted per attempt and sorted most frequent first."""
    out: dict[str, Any] = {}
    for tier in sorted({lg["tier"] for lg in logs}) + ["all"]:
        rows = [lg for lg in logs if tier in ("all", lg["tier"])]
        ok = sum(not lg.get("failed") for lg in rows)
        out[tier] = {
            "attempted": len(rows),
            "accepted": ok,
            "rate": ok / len(rows) if rows else float("nan"),
            "calls": sum(lg["retries"] + 1 for lg in rows),
        }
    reasons = Counter(k for lg in logs for attempt in lg.get("reasons", []) for k in {reason_key(r) for r in attempt})
    out["reasons"] = dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


def _generate_llm(args: argparse.Namespace, kb, on_log) -> tuple[list, list, dict]:
    """Generator A; returns ``(dialogues, failures, run settings for the acceptance report)``."""
    from trace_crs.dialogues.llm import generate_llm

    if not args.model:
        raise ValueError("--generator llm needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)")
    local = args.model.split(":")[0] == "local"  # local[:weights]: the project's llama.cpp server
    run = {
        "model": args.model,
        "prompt": args.prompt or ("v2-compact" if local else "v2"),
        "decoding": args.decoding or ("constrained" if local else "free"),
        "n": args.n,
        "seed": args.seed,
        "max_retries": args.max_retries,
    }
    opts = dict(
        max_retries=args.max_retries,
        progress=not os.environ.get("TQDM_DISABLE"),
        prompt=run["prompt"],
        decoding=run["decoding"],
        on_log=on_log,
    )
    if not local:
        if args.set:
            raise ValueError("--set configures the local llama.cpp generator only (--model local[:weights])")
        dialogues, failures = generate_llm(kb, args.n, args.model, args.seed, api_base=args.api_base, **opts)
        return dialogues, failures, run
    from trace_crs.lm.backend import open_lm
    from trace_crs.lm.config import as_dict

    cfg = _llm_lm_config(args)
    print(f"lm: {cfg}", file=sys.stderr, flush=True)
    with open_lm(cfg) as lm:
        dialogues, failures = generate_llm(kb, args.n, f"local:{cfg.weights}", args.seed, lm=lm, **opts)
        run.update(lm_model=lm.model, lm=as_dict(cfg))
    return dialogues, failures, run


def _generate(args: argparse.Namespace) -> int:
    import time

    from trace_crs.dialogues.generate import generate_simulated, write_corpus

    kb = _load_kb(args.kb)
    t0 = time.monotonic()
    logs: list = []

    def on_log(log: dict) -> None:
        logs.append(log)
        print(json.dumps(log), file=sys.stderr, flush=True)

    if args.generator == "simulated":
        failures: list[Any]
        dialogues, failures = generate_simulated(kb, args.n, args.seed, progress=not os.environ.get("TQDM_DISABLE")), []
    else:
        dialogues, failures, run = _generate_llm(args, kb, on_log)
    out = write_corpus(dialogues, args.out)
    if failures:
        from trace_crs.kb.store import dump_jsonl

        dump_jsonl(failures, out.with_suffix(".failures.jsonl"))
    if logs:
        report = {**run, "wall_s": round(time.monotonic() - t0, 1), "acceptance": acceptance(logs)}
        write_text(out.with_suffix(".acceptance.json"), json.dumps(report, indent=2) + "\n")
        for tier, row in report["acceptance"].items():
            if tier != "reasons":
                print(
                    f"  {tier:8s} accepted {row['accepted']}/{row['attempted']}  ({row['calls']} LM calls)",
                    file=sys.stderr,
                )
        print(f"  failure reasons per attempt: {report['acceptance']['reasons']}", file=sys.stderr)
    print(
        f"dialogues: {len(dialogues)} written to {out} ({len(failures)} failed) in {time.monotonic() - t0:.0f} s",
        file=sys.stderr,
    )
    return 0


def _validate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import record_validated
    from trace_crs.dialogues.validate import summarize
    from trace_crs.kb.store import iter_jsonl

    # raw records: summarize() checks the schema once per dialogue and reports failures as "schema"
    dialogues = [record for _, record in iter_jsonl(args.file)]
    if not dialogues:  # "0 passed (nan%)" must not be recorded as a validated corpus
        raise DataError("no dialogues (an empty corpus)", file=str(args.file), field="<file>")
    kb = _load_kb(args.kb)
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

        stats.update(evidence_stats(dialogues, _load_kb(args.kb), str(args.file)))
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
    from collections import Counter

    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.unsolvable import build_unsolvable
    from trace_crs.kb.store import dump_jsonl

    # build_unsolvable reads each dialogue as a plain mapping of the schema's fields
    corpus = cast("list[dict[str, Any]]", load_dialogues(args.file))
    items = build_unsolvable(_load_kb(args.kb), corpus, args.n, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    dump_jsonl(items, args.out)
    print(
        f"unsolvable: {len(items)} items {dict(sorted(Counter(i['unsolvable']['reason'] for i in items).items()))} "
        f"-> {args.out}",
        file=sys.stderr,
    )
    return 0


def _release(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.release import release_dialogue
    from trace_crs.dialogues.schema import iter_dialogues
    from trace_crs.kb.store import dump_jsonl

    kb = _load_kb(args.kb)
    dump_jsonl([release_dialogue(d, kb) for d in iter_dialogues(args.file)], args.out)
    return 0


def _hydrate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.release import hydrate_dialogue
    from trace_crs.dialogues.schema import check_dialogue
    from trace_crs.kb.store import dump_jsonl, iter_jsonl

    kb = _load_kb(args.kb)
    out = [check_dialogue(hydrate_dialogue(rec, kb), args.file, line) for line, rec in iter_jsonl(args.file)]
    dump_jsonl(out, args.out)
    return 0


def _corpus_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="dialogues JSON-lines file (or --dialogues)")
    p.add_argument("--dialogues", dest="file_flag", help="dialogues JSON-lines file")
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
    p = sub.add_parser("generate", help="generate dialogues (simulated: offline default; llm: DSPy + litellm)")
    p.add_argument("--kb", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--generator", choices=("simulated", "llm"), default="simulated")
    p.add_argument(
        "--model",
        default=None,
        help="litellm model string for --generator llm, or local[:weights] for the "
        "project's llama.cpp server (default weights: the 1.5B Qwen2.5-Coder)",
    )
    p.add_argument("--api-base", default=None, help="OpenAI-compatible server URL for --generator llm")
    p.add_argument("--max-retries", type=int, default=2)
    p.add_argument(
        "--prompt",
        choices=("v2", "v2-compact"),
        default=None,
        help="--generator llm prompt version (default: v2-compact for local, else v2)",
    )
    p.add_argument(
        "--decoding",
        choices=("free", "constrained"),
        default=None,
        help="--generator llm decoding; constrained = JSON-schema grammar, llama.cpp servers only "
        "(default: constrained for local, else free)",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a field of the local generator's LM config, e.g. lm.timeout_s=3600 " "lm.max_tokens=3000",
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_generate)
    p = sub.add_parser("validate", help="validate dialogues against the KB (exit 1 when any fails)")
    _corpus_arg(p)
    p.add_argument("--kb", required=True, help="KB directory the dialogues were generated from")
    p.add_argument("--show", type=int, default=5, help="failed dialogues to list")
    p.set_defaults(func=_validate)
    p = sub.add_parser("stats", help="Table-3 dialogue statistics")
    _corpus_arg(p)
    p.add_argument(
        "--kb",
        default=None,
        help="KB directory the dialogues were generated from (adds quote specificity and "
        "negated/disjunctive preferences)",
    )
    p.add_argument("--out", "--json", dest="json", default=None, help="also write the statistics to this JSON file")
    p.set_defaults(func=_stats)
    p = sub.add_parser("leakage", help="audit: keyword-decoder recovery of the acceptable sets, persona information")
    _corpus_arg(p)
    p.add_argument("--kb", required=True, help="KB directory the dialogues were generated from")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the shuffled-persona control")
    p.add_argument("--out", "--json", dest="json", help="write the audit as JSON here")
    p.set_defaults(func=_leakage)
    p = sub.add_parser("unsolvable", help="build the unsolvable set (requests no POI satisfies) from the KB and corpus")
    _corpus_arg(p)
    p.add_argument("--kb", required=True, help="KB directory the dialogues were generated from")
    p.add_argument("--n", type=int, default=300, help="items, split evenly over the four reasons")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the source dialogues and extra constraints")
    p.add_argument("--out", required=True, help="unsolvable items (JSON lines, dialogue schema)")
    p.set_defaults(func=_unsolvable)
    p = sub.add_parser("release", help="replace verbatim quotes by [Q:N] placeholders + pointers")
    _corpus_arg(p)
    p.add_argument("--kb", required=True, help="KB directory the quotes come from")
    p.add_argument("--out", required=True, help="released corpus (JSON lines)")
    p.set_defaults(func=_release)
    p = sub.add_parser("hydrate", help="restore released quotes from a KB")
    _corpus_arg(p)
    p.add_argument("--kb", required=True, help="KB directory holding the quoted reviews")
    p.add_argument("--out", required=True, help="hydrated corpus (JSON lines)")
    p.set_defaults(func=_hydrate)
