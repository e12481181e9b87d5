"""``trace-crs dialogues generate``: the corpus generators (``simulated``, offline, and
``llm``, generator A through DSPy + litellm or the project's local llama.cpp server) and the
LLM generator's acceptance report (``<out>.acceptance.json``: attempts, acceptances and
failure reasons per tier)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_text
from trace_crs.cli.arguments import add_kb, add_n, add_out, add_seed, add_set


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


def run_generate(args: argparse.Namespace) -> int:
    """``dialogues generate``."""
    import time

    from trace_crs.cli.dialogues import load_kb_dir
    from trace_crs.dialogues.generate import check_splits_dir, generate_simulated, splits_dir, write_corpus

    check_splits_dir(splits_dir(args.out))  # before any dialogue is generated (write_corpus checks again)
    kb = load_kb_dir(args.kb)
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
    out = Path(args.out)
    extra: dict[Path, Callable[[Path], Any]] = {}  # committed with the corpus (atomic.commit_files)
    if failures:
        from trace_crs.kb.store import dump_jsonl

        extra[out.with_suffix(".failures.jsonl")] = lambda t: dump_jsonl(failures, t)
    if logs:
        report = {**run, "wall_s": round(time.monotonic() - t0, 1), "acceptance": acceptance(logs)}
        text = json.dumps(report, indent=2) + "\n"
        extra[out.with_suffix(".acceptance.json")] = lambda t: write_text(t, text)
    write_corpus(dialogues, out, extra)
    if logs:
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


def add_generate(sub: Any) -> None:
    """Add ``dialogues generate`` to the group's subparsers ``sub``."""
    p = sub.add_parser("generate", help="generate dialogues (simulated: offline default; llm: DSPy + litellm)")
    add_kb(p, None, required=True)
    add_n(p, None, required=True)
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
    add_set(p, "override a field of the local generator's LM config, e.g. lm.timeout_s=3600 lm.max_tokens=3000")
    add_seed(p)
    add_out(p, required=True)
    p.set_defaults(func=run_generate)
