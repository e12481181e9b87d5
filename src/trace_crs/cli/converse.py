"""``trace-crs converse``: baselines converse live with the simulated user (TravelBench's
simulated-user loop, seed 003 §3; :mod:`trace_crs.live`).

    trace-crs converse --kb D --dialogues F --baselines non-llm|llm|all|a,b \\
        [--subset N] [--seed N] [--max-turns 4] [--pool closed] --out DIR

Writes ``DIR/transcripts|predictions/<b>.jsonl``, ``DIR/outcomes/<b>.parquet`` and
``DIR/live_scores.json|parquet`` (:mod:`trace_crs.live.run`).  Re-running into the same
``--out`` skips finished baselines; a ``--out`` that is an input is refused (exit 2).
``--config`` / ``--set k=v`` give the same settings (keys of :class:`trace_crs.live.run.LiveConfig`,
or the ``converse:`` section of a project config, else its ``evaluate:`` section, so
``--config configs/<profile>/closed_llm.yaml`` runs the LLM baselines on the replayed run's
subset with its LM); explicit flags win.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from trace_crs.cli import given_flags
from trace_crs.cli.arguments import add_out, add_quiet, add_run_arguments
from trace_crs.config import config_sections


def config_section(path: str | None) -> str:
    """``converse``; for a project run config without one, its ``evaluate`` section (the live
    run then evaluates what the replayed run evaluates: baselines, pool, subset, seed, lm)."""
    sections = config_sections(path)
    return "evaluate" if "converse" not in sections and "evaluate" in sections else "converse"


def _run(args: argparse.Namespace) -> int:
    from trace_crs.config import load_config
    from trace_crs.live.run import LiveConfig, run_live

    cfg = load_config(LiveConfig, args.config, args.set, section=config_section(args.config))
    cfg = dataclasses.replace(cfg, **given_flags(LiveConfig, args))
    if not cfg.kb or not cfg.dialogues:
        raise ValueError("converse: --kb and --dialogues are required (or set them in --config)")

    def progress(name: str, done: int, total: int) -> None:
        if not args.quiet:
            print(f"converse {name}: {done}/{total}", file=sys.stderr)

    summary = run_live(cfg, args.out, progress)
    metrics = {
        n: {k: s["metrics"].get(k) for k in ("tsr", "t2r", "rejection_recovery", "cgs")}
        for n, s in summary["baselines"].items()
    }
    print(json.dumps({"out": args.out, "baselines": metrics}, sort_keys=True))
    return 0


def register(subparsers) -> None:
    """Add the ``converse`` command."""
    p = subparsers.add_parser(
        "converse",
        help="run baselines live against the simulated user (resumable)",
        description=__doc__.splitlines()[0],
    )
    add_run_arguments(p, "converse")
    p.add_argument("--max-turns", dest="max_turns", type=int, help="system turns before the user gives up (default 4)")
    p.add_argument(
        "--opening-prefs", dest="opening_prefs", type=int, help="preferences the opening request states (default 1)"
    )
    p.add_argument(
        "--simulator",
        choices=["template", "llm"],
        help="template (default) or llm: the template user rewritten by the LM of the lm block (--set lm.KEY=V)",
    )
    p.add_argument("--ask", type=int, help="questions each system may ask before recommending (live.ask; default 0)")
    add_quiet(p, "no progress lines")
    add_out(p, "output directory, e.g. results/<profile>/live/<run>", required=True)
    p.set_defaults(func=_run)
