"""`trace-crs stats` commands: cluster bootstrap and routing oracles over score parquet files.

* ``trace-crs stats bootstrap --scores DIR [--level per_turn|per_dialogue] [--pair A:B:METRIC ...]
  [--n-boot N] [--seed N] --out CSV`` — Table 21 pairs by default.
* ``trace-crs stats abstention --kb DIR --dialogues FILE --unsolvable FILE [--n-solvable 300]
  [--seed N] --out DIR`` (:mod:`trace_crs.cli.stats_abstention`) — TravelBench-style abstention of
  the rankers with a confidence (:mod:`trace_crs.baselines.abstain`): best candidate score at the first request of every
  unsolvable item and of a seeded sample of solvable dialogues (``confidence.parquet``), the
  τ sweep of :func:`trace_crs.metrics.abstention.tau_sweep` (``tau_sweep.csv``) and the items
  per reason (``reasons.csv``).
* ``trace-crs stats oracle --scores DIR --records RECORDS.parquet [--quality recall@1,cgs,...]
  [--cost cost_usd|tokens|latency_s] [--budgets N] --out CSV`` — budget curve (in-sample upper bound
  with perfect foresight); the quality of a dialogue is the mean of the listed metrics
  (turn metrics first averaged over the dialogue's turns; undefined components skipped).
* ``trace-crs stats sensitivity fuzzy|spatial|nli|bimodality|errors --results DIR --runs A[,B]
  [--baselines X,Y] [--n-dialogues N] [--seed N] [--settings S1,S2,...] [--entailment SPEC]
  [--fuzzy-threshold 0.8] --out FILE.parquet`` — the re-scoring analyses of App. L / App. O
  (:mod:`trace_crs.stats.sensitivity`) on a seeded sample of each run's dialogues.
* ``trace-crs stats diagnose --results DIR [--run closed] [--corpus-runs kb_missingness=closed_missing]
  [--n-dialogues N] [--seed N] --out FILE.parquet`` — every variant that tests a cause of a
  deviation from the paper (:mod:`trace_crs.stats.diagnosis`), for the Deviations page.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from trace_crs.atomic import commit_files, refuse_overlap, write_atomic, write_text
from trace_crs.cli import add_group
from trace_crs.cli.arguments import add_baselines, add_n_boot, add_out, add_seed
from trace_crs.cli.guard import warn_capped
from trace_crs.cli.io_paths import check_run_configs
from trace_crs.cli.stats_abstention import add_abstention
from trace_crs.cli.tables import read_table, safe_cells
from trace_crs.config import ScoreConfig
from trace_crs.oracle import budget_curve, elbow, oracle_instance
from trace_crs.oracle.quality import COMPONENTS, COSTS, joint_quality
from trace_crs.stats.bootstrap import TABLE21_PAIRS, bootstrap_pairs
from trace_crs.stats.cost import dialogue_costs

# the flags sensitivity and diagnose share: both re-score the runs of one results root
RESULTS_ROOT = "results/<profile>/ (reads runs/<run>/)"
EVERY_BASELINE = "comma-separated baselines (default: every one of the run)"
PARQUET_OUT = "output Parquet file"


def _load_scores(directory: Path, level: str) -> pd.DataFrame:
    paths = sorted(directory.glob(f"*.{level}.parquet"))
    if not paths:
        raise FileNotFoundError(f"{directory}: no *.{level}.parquet score files")
    return pd.concat([read_table(p).assign(baseline=p.name.split(".")[0]) for p in paths], ignore_index=True)


def _pair(text: str) -> tuple[str, str, str]:
    parts = text.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"--pair expects A:B:METRIC, got {text!r}")
    return parts[0], parts[1], parts[2]


def _bootstrap(args: argparse.Namespace) -> int:
    frame = _load_scores(args.scores, args.level)
    out = bootstrap_pairs(frame, args.pair or TABLE21_PAIRS, args.n_boot, args.seed, source=str(args.scores))
    if args.out.suffix == ".json":  # the format follows the file name
        write_text(args.out, out.to_json(orient="records", indent=2) + "\n")
    else:
        write_atomic(args.out, lambda t: safe_cells(out).to_csv(t, index=False))
    print(out.to_string(index=False))
    return 0


def _oracle(args: argparse.Namespace) -> int:
    quality = joint_quality(
        _load_scores(args.scores, "per_turn"), _load_scores(args.scores, "per_dialogue"), _names(args.quality)
    )
    costs = dialogue_costs(read_table(args.records), source=str(args.records))
    column = COSTS[args.cost]
    table = quality.merge(costs[["dialogue_id", "baseline", column]], on=["dialogue_id", "baseline"], how="left")
    inst = oracle_instance(table, "quality", column, source=f"{args.scores} + {args.records}")
    curve, shares = budget_curve(inst, n_points=args.budgets)
    curve["elbow_budget"] = elbow(curve["budget"], curve["mean_quality"])
    shares_path = args.out.with_suffix(".shares.csv")
    refuse_overlap([shares_path], [args.scores, args.records])
    commit_files(
        {
            shares_path: lambda t: safe_cells(shares).to_csv(t, index=False),
            args.out: lambda t: safe_cells(curve).to_csv(t, index=False),
        },
        marker=args.out,
    )
    print(curve.to_string(index=False))
    return 0


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _sensitivity(args: argparse.Namespace) -> int:
    from trace_crs.cli.score import refuse_inputs
    from trace_crs.errors import UsageError
    from trace_crs.stats import sensitivity

    if args.out.is_dir():
        raise UsageError(f"--out {args.out} is a directory; it names the output Parquet file")
    refuse_inputs([args.out], [str(args.results / "runs")])
    check_run_configs(args)
    settings = sensitivity.parse_settings(args.settings) if args.settings else None
    frame = sensitivity.analyse(
        args.analysis,
        args.results,
        _names(args.runs),
        baselines=_names(args.baselines) if args.baselines else None,
        n_dialogues=args.n_dialogues,
        seed=args.seed,
        settings=settings,
        entailment=args.entailment,
        fuzzy_threshold=args.fuzzy_threshold,
    )
    sensitivity.write(frame, args.out)
    if "n_dialogues" in frame and len(frame):
        warn_capped("--n-dialogues", args.n_dialogues, int(frame["n_dialogues"].min()), "dialogues of a run")
    print(args.out)
    return 0


def _diagnose(args: argparse.Namespace) -> int:
    from trace_crs.cli.score import refuse_inputs
    from trace_crs.errors import UsageError
    from trace_crs.stats import diagnosis

    if args.out.is_dir():
        raise UsageError(f"--out {args.out} is a directory; it names the output Parquet file")
    refuse_inputs([args.out], [str(args.results / "runs")])
    check_run_configs(args)
    frame = diagnosis.diagnose(
        args.results,
        args.run_name,
        diagnosis.parse_corpus_runs(args.corpus_runs),
        baselines=_names(args.baselines) if args.baselines else None,
        n_dialogues=args.n_dialogues,
        seed=args.seed,
    )
    diagnosis.write(frame, args.out)
    if "n_dialogues" in frame and len(frame):
        warn_capped(
            "--n-dialogues", args.n_dialogues, int(frame["n_dialogues"].min()), f"dialogues of run {args.run_name}"
        )
    print(args.out)
    return 0


def register(subparsers) -> None:
    """Add ``stats bootstrap``, ``stats abstention``, ``stats oracle`` and ``stats sensitivity``."""
    sub = add_group(subparsers, "stats", "bootstrap CIs and routing oracles over score files")
    boot = sub.add_parser("bootstrap", help="paired cluster bootstrap by dialogue (Table 21)")
    boot.add_argument("--scores", type=Path, required=True, help="results/<profile>/scores/<run>/")
    boot.add_argument("--level", choices=("per_turn", "per_dialogue"), default="per_turn")
    boot.add_argument("--pair", type=_pair, action="append", help="A:B:METRIC (repeatable; default Table 21)")
    add_n_boot(boot, "bootstrap resamples of every pair")
    add_seed(boot, "seed of the bootstrap resamples")
    add_out(boot, required=True, path=True)
    boot.set_defaults(func=_bootstrap)
    add_abstention(sub)
    orc = sub.add_parser("oracle", help="budget-oracle curve (in-sample upper bound with perfect foresight)")
    orc.add_argument("--scores", type=Path, required=True)
    orc.add_argument("--records", type=Path, required=True, help="the run's records.parquet (for costs)")
    orc.add_argument(
        "--quality",
        default=",".join(COMPONENTS),
        help="comma-separated metrics averaged into a dialogue's quality (default: the oracle's joint score)",
    )
    orc.add_argument(
        "--cost", choices=tuple(COSTS), default="cost_usd", help="the cost axis, named as oracle.quality.COSTS names it"
    )
    orc.add_argument("--budgets", type=int, default=20)
    add_out(orc, required=True, path=True)
    orc.set_defaults(func=_oracle)
    sens = sub.add_parser("sensitivity", help="re-score runs at other settings (App. L sweeps, App. O error rates)")
    sens.add_argument("analysis", help="fuzzy (Table 16), spatial (Table 18), nli, bimodality or errors (Figure 6)")
    sens.add_argument("--results", type=Path, required=True, help=RESULTS_ROOT)
    sens.add_argument("--runs", required=True, help="comma-separated run names (one for nli, bimodality)")
    add_baselines(sens, EVERY_BASELINE)
    sens.add_argument("--n-dialogues", type=int, help="seeded sample of each run's dialogues (default: all)")
    add_seed(sens, "seed of the dialogue sample")
    sens.add_argument("--settings", help="comma-separated sweep settings (default: the paper's)")
    sens.add_argument("--entailment", default="embedding", help="NLI backend of nli, bimodality")
    sens.add_argument(
        "--fuzzy-threshold",
        type=float,
        default=ScoreConfig.fuzzy_threshold,
        help="grounding-error threshold of the errors analysis",
    )
    add_out(sens, PARQUET_OUT, required=True, path=True)
    sens.set_defaults(func=_sensitivity)
    diag = sub.add_parser("diagnose", help="score every variant that tests a cause of a deviation from the paper")
    diag.add_argument("--results", type=Path, required=True, help=RESULTS_ROOT)
    diag.add_argument(
        "--run", dest="run_name", default="closed", help="the run (a name under results/runs/) every variant scores"
    )
    diag.add_argument("--corpus-runs", help="VARIANT=RUN,... runs of the same dialogues on a changed corpus")
    add_baselines(diag, EVERY_BASELINE)
    diag.add_argument("--n-dialogues", type=int, help="seeded sample of the run's dialogues (default: all)")
    add_seed(diag, "seed of the dialogue sample")
    add_out(diag, PARQUET_OUT, required=True, path=True)
    diag.set_defaults(func=_diagnose)
