"""`trace-crs dialogues` commands: generate, validate, stats, release, hydrate (issue 3)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _load_kb(path: str):  # noqa: ANN202
    from trace_crs.kb.store import load_kb
    if not Path(path, "pois.jsonl").exists():
        raise FileNotFoundError(f"{path}: not a KB directory (no pois.jsonl); build one with `trace-crs kb build`")
    return load_kb(path)


def _generate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.generate import generate_simulated, write_corpus
    kb = _load_kb(args.kb)
    if args.generator == "simulated":
        dialogues = generate_simulated(kb, args.n, args.seed, progress=True)
        failures: list = []
    else:
        if not args.model:
            raise ValueError("--generator llm needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)")
        from trace_crs.dialogues.llm import generate_llm
        if args.model.split(":")[0] == "local":  # local[:weights]: the project's llama.cpp server
            from trace_crs.lm.backend import open_lm
            from trace_crs.lm.config import resolve_lm_config

            weights = args.model.partition(":")[2] or "qwen2.5-coder-1.5b-instruct-q4_k_m"
            cfg = resolve_lm_config({"model": "local", "weights": weights, "max_tokens": 2048, "n_ctx": 8192})
            with open_lm(cfg) as lm:
                dialogues, failures = generate_llm(kb, args.n, f"local:{weights}", args.seed,
                                                   max_retries=args.max_retries, progress=True, lm=lm)
        else:
            dialogues, failures = generate_llm(kb, args.n, args.model, args.seed, max_retries=args.max_retries,
                                               api_base=args.api_base, progress=True)
    out = write_corpus(dialogues, args.out)
    if failures:
        from trace_crs.kb.store import dump_jsonl
        dump_jsonl(failures, out.with_suffix(".failures.jsonl"))
    print(f"dialogues: {len(dialogues)} written to {out} ({len(failures)} failed)", file=sys.stderr)
    return 0


def _validate(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.validate import summarize
    dialogues = load_dialogues(args.file)
    kb = _load_kb(args.kb)
    summary = summarize(dialogues, kb)
    print(f"validated {summary['n']} dialogues: {summary['passed']} passed ({summary['pass_rate']:.1%})")
    for reason, row in summary["reasons"].items():
        print(f"  {reason:24s} {row['dialogues']:6d}  {row['share']:.1%}")
    for did, fails in list(summary["failed"].items())[: args.show]:
        print(f"  {did}: {'; '.join(fails)[:300]}")
    return 0 if summary["passed"] == summary["n"] else 1


def _stats(args: argparse.Namespace) -> int:
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.stats import corpus_stats
    stats = corpus_stats(load_dialogues(args.file))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(stats, indent=2, sort_keys=True) + "\n")
    for key, value in stats.items():
        print(f"{key:28s} {value:.3f}" if isinstance(value, float) else f"{key:28s} {value}")
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


def register(subparsers) -> None:  # noqa: ANN001
    """Add the ``dialogues`` command group."""
    group = subparsers.add_parser("dialogues", help="generate, validate and release the dialogue corpus")
    sub = group.add_subparsers(dest="dialogues_command", required=True)
    p = sub.add_parser("generate", help="generate dialogues (simulated: offline default; llm: DSPy + litellm)")
    p.add_argument("--kb", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--generator", choices=("simulated", "llm"), default="simulated")
    p.add_argument("--model", default=None, help="litellm model string for --generator llm, or local[:weights] for the "
                   "project's llama.cpp server (default weights: the 1.5B Qwen2.5-Coder)")
    p.add_argument("--api-base", default=None, help="OpenAI-compatible server URL for --generator llm")
    p.add_argument("--max-retries", type=int, default=2)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_generate)
    p = sub.add_parser("validate", help="validate dialogues against the KB (exit 1 when any fails)")
    p.add_argument("file")
    p.add_argument("--kb", required=True)
    p.add_argument("--show", type=int, default=5, help="failed dialogues to list")
    p.set_defaults(func=_validate)
    p = sub.add_parser("stats", help="Table-3 dialogue statistics")
    p.add_argument("file")
    p.add_argument("--json", default=None, help="also write the statistics to this JSON file")
    p.set_defaults(func=_stats)
    p = sub.add_parser("release", help="replace verbatim quotes by [Q:N] placeholders + pointers")
    p.add_argument("file")
    p.add_argument("--kb", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_release)
    p = sub.add_parser("hydrate", help="restore released quotes from a KB")
    p.add_argument("file")
    p.add_argument("--kb", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_hydrate)
