"""``trace-crs evaluate``: replay reference dialogues through baselines (ARCHITECTURE §4).

    trace-crs evaluate --kb D --dialogues F --baselines all|non-llm|llm|name,... \\
        --pool closed|16|32|open [--subset N] [--seed N] [--workers 2] --out results/runs/<run_id>

A ``--config`` YAML — keys of :class:`trace_crs.runner.run.RunConfig`, or the project's own
``configs/<profile>/<run>.yaml`` (its ``evaluate:`` section) — and ``--set k=v`` give the same
settings; explicit flags win.  Re-running into the same ``--out`` resumes.  An ``--out`` that is
an input (the KB directory, the dialogues file) is refused.  ``--estimate [K]`` measures K
dialogues and prints the projected cost of the run (:mod:`trace_crs.runner.estimate`).
``--concurrency``, ``--executor`` and ``--max-cost-usd`` (also ``--set concurrency=N``) never
change a record; a run stopped by its budget exits with 4 and resumes when re-run with a
larger one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

from trace_crs import results_layout as layout
from trace_crs.cli import given_flags
from trace_crs.cli.arguments import add_out, add_quiet, add_run_arguments
from trace_crs.config import ScoreConfig, config_sections, load_config
from trace_crs.errors import UsageError

if TYPE_CHECKING:
    from trace_crs.runner.run import RunConfig

BUDGET_EXIT = 4  # stopped by --max-cost-usd: complete chunks kept, nothing consolidated


def run_score_config(path: str | None, run: RunConfig) -> ScoreConfig:
    """The settings of ``--score``: the ``score:`` section of a project config — what
    ``trace-crs score --config`` reads, so the run's own scores equal the pipeline's — with the
    run's pool; without one, the defaults for the run's pool and seed."""
    if "score" not in config_sections(path):
        return ScoreConfig(pool=run.pool, seed=run.seed)
    return load_config(ScoreConfig, path, [f"pool={run.pool}"], section="score")


def _run(args: argparse.Namespace) -> int:
    from trace_crs.runner.run import RunConfig, evaluate

    cfg = load_config(RunConfig, args.config, args.set, section="evaluate")
    cfg = dataclasses.replace(cfg, **given_flags(RunConfig, args))
    if not cfg.kb or not cfg.dialogues:
        raise ValueError("evaluate: --kb and --dialogues are required (or set them in --config)")
    if args.workers < 1:
        raise ValueError(f"--workers must be ≥ 1, got {args.workers}")
    if args.estimate is not None:
        from trace_crs.runner.estimate import estimate

        print(json.dumps(estimate(cfg, args.estimate), sort_keys=True, indent=2))
        return 0
    if not args.out:
        raise UsageError("evaluate: --out is required (except with --estimate)")
    out = Path(args.out)
    for given in (cfg.kb, cfg.dialogues):
        i = Path(given).resolve()
        if out.resolve() == i or i in out.resolve().parents or (i.is_dir() and out.resolve() in i.parents):
            raise UsageError(f"--out {out} would overwrite the input {i}; choose another run directory")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is an existing file; a run writes a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / layout.RUN_CONFIG).exists():
        raise UsageError(
            f"--out {out} is a non-empty directory that is not a run (no config.yaml); "
            "choose a new or empty directory"
        )
    if cfg.subset is not None and Path(cfg.dialogues).is_file():
        from trace_crs.cli.guard import warn_capped

        with open(cfg.dialogues, "rb") as fh:  # records are one per non-blank line (a bad one fails later)
            warn_capped("--subset", cfg.subset, sum(1 for line in fh if line.strip()), f"dialogues of {cfg.dialogues}")
    score = run_score_config(args.config, cfg) if args.score else None
    manifest = evaluate(
        cfg, args.out, workers=args.workers, progress=not args.quiet, cache_dir=args.cache_dir, score=score
    )
    if not manifest["complete"]:
        print(json.dumps({"out": args.out, **manifest}, sort_keys=True))
        return BUDGET_EXIT
    print(
        json.dumps(
            {
                "out": args.out,
                "n_records": manifest["n_records"],
                "counts": manifest["counts"],
                "faults": {k: v for k, v in manifest["faults"].items() if v},
            },
            sort_keys=True,
        )
    )
    return 0


def register(subparsers) -> None:
    """Add the ``evaluate`` command."""
    p = subparsers.add_parser(
        "evaluate", help="run baselines over reference dialogues (resumable)", description=__doc__.splitlines()[0]
    )
    add_run_arguments(p, "evaluate")
    p.add_argument("--chunk-size", dest="chunk_size", type=int, help="dialogues per resumable chunk")
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes for non-LLM chunks, and for an API model's LLM chunks (sharing --concurrency); default 2",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        help="LLM dialogues in flight (default auto: one per local llama.cpp server process, 64 for an API)",
    )
    p.add_argument(
        "--executor",
        choices=["local", "ray"],
        help="local (default) or ray: chunks on Ray actors (ray_address / $RAY_ADDRESS, else a local cluster)",
    )
    p.add_argument(
        "--max-cost-usd",
        dest="max_cost_usd",
        type=float,
        help="run-wide LM budget: stop cleanly before it is exceeded (exit 4); re-run with more to resume",
    )
    p.add_argument(
        "--estimate",
        type=int,
        nargs="?",
        const=4,
        metavar="K",
        help="print projected LM calls, tokens, dollars and wall time from K measured dialogues "
        "(default 4); nothing is written to --out",
    )
    p.add_argument("--cache-dir", help="on-disk cache for shared work (default ~/.cache/trace-crs/vectors)")
    add_quiet(p, "no progress bars")
    p.add_argument(
        "--score",
        action="store_true",
        help="also write scores/<baseline>.json: the --config's score: section, else the default settings "
        "(the run's pool always)",
    )
    add_out(p, "run directory, e.g. results/runs/<run_id> (required unless --estimate)")
    p.set_defaults(func=_run)
