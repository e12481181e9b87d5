"""``trace-crs stats abstention`` and ``stats abstention-llm``: abstention on the unsolvable set
(TravelBench-style, paper §4): the rankers' best-candidate confidence and its τ sweep, and the
LLM baselines' ``[Unsolved]`` declines, each against a seeded sample of solvable dialogues.
Unlike the other ``stats`` commands these read the KB and the corpora, not score files."""

from __future__ import annotations

import argparse
from typing import Any, cast

import pandas as pd

from trace_crs.atomic import commit_files
from trace_crs.cli.arguments import add_baselines, add_config, add_dialogues, add_kb, add_out, add_seed
from trace_crs.cli.guard import warn_capped

N_TAUS = 41


def run_abstention(args: argparse.Namespace) -> int:
    """``stats abstention``."""
    import numpy as np

    from trace_crs.baselines.abstain import confidence_table
    from trace_crs.cli.score import refuse_inputs
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.errors import UsageError
    from trace_crs.kb import load_kb
    from trace_crs.metrics.abstention import tau_sweep

    out = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; it names the output directory")
    refuse_inputs(
        [out / "confidence.parquet", out / "tau_sweep.csv", out / "reasons.csv"],
        [args.kb, args.dialogues, args.unsolvable],
    )
    from trace_crs.dialogues.unsolvable import check_kb

    kb, unsolvable = load_kb(args.kb), load_dialogues(args.unsolvable)
    check_kb(cast("list[dict[str, Any]]", unsolvable), kb, str(args.unsolvable))
    corpus = load_dialogues(args.dialogues)
    rng = np.random.default_rng(args.seed)
    warn_capped("--n-solvable", args.n_solvable, len(corpus), f"dialogues of {args.dialogues}")
    picks = sorted(rng.choice(len(corpus), size=min(args.n_solvable, len(corpus)), replace=False))
    table = confidence_table(kb, unsolvable, [corpus[i] for i in picks])
    reason = {d["dialogue_id"]: d["unsolvable"]["reason"] for d in unsolvable}
    table["reason"] = [
        reason[i] if u else "solvable" for i, u in zip(table["dialogue_id"], table["unsolvable"], strict=False)
    ]
    finite = table["best_score"][np.isfinite(table["best_score"])]
    taus = np.unique(np.round(np.quantile(finite, np.linspace(0, 1, N_TAUS)), 6)) if len(finite) else np.array([0.0])
    taus = np.append(taus, taus[-1] + 1e-6)  # the last τ abstains on everything with a finite score
    sweep = pd.concat(
        [
            tau_sweep(part["best_score"], part["unsolvable"], taus).assign(baseline=name)
            for name, part in table.groupby("baseline", sort=True)
        ],
        ignore_index=True,
    )
    reasons = pd.Series([d["unsolvable"]["reason"] for d in unsolvable]).value_counts().sort_index()
    commit_files(
        {
            out / "tau_sweep.csv": lambda t: sweep.to_csv(t, index=False, float_format="%.6g"),
            out / "reasons.csv": lambda t: reasons.rename_axis("reason").rename("items").to_csv(t),
            out / "confidence.parquet": lambda t: table.to_parquet(t, index=False),
        },
        marker=out / "confidence.parquet",
    )  # one commit, the table last (trace_crs.atomic)
    print(out)
    return 0


def run_abstention_llm(args: argparse.Namespace) -> int:
    """``stats abstention-llm``: the LLM baselines of a run config on the unsolvable set and a
    seeded sample of solvable dialogues (the ``[Unsolved]`` rule is in their prompt)."""
    import dataclasses

    import numpy as np

    from trace_crs.baselines.abstain import decline_table
    from trace_crs.baselines.registry import uses_llm
    from trace_crs.cli.converse import config_section
    from trace_crs.cli.score import refuse_inputs
    from trace_crs.config import load_config
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.dialogues.subset import select_subset
    from trace_crs.errors import UsageError
    from trace_crs.kb import load_kb
    from trace_crs.live.run import LiveConfig, resolved_config
    from trace_crs.metrics.abstention import decline_scores
    from trace_crs.runner.execute import build_baselines
    from trace_crs.runner.llm_pool import auto_concurrency

    out = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; it names the output directory")
    refuse_inputs(
        [out / "llm_decisions.parquet", out / "llm_abstention.csv"],
        [args.kb, args.dialogues, args.unsolvable, args.config],
    )
    cfg = load_config(LiveConfig, args.config, args.set, section=config_section(args.config))
    cfg = dataclasses.replace(
        cfg, kb=args.kb, dialogues=args.dialogues, **({"baselines": args.baselines} if args.baselines else {})
    )
    resolved = resolved_config(cfg)
    names = [n for n in resolved["baselines"] if uses_llm(n)]
    if not names:
        raise UsageError(f"abstention-llm: no LLM baseline in {resolved['baselines']}")
    from trace_crs.dialogues.unsolvable import check_kb

    kb, unsolvable = load_kb(args.kb), load_dialogues(args.unsolvable)
    check_kb(cast("list[dict[str, Any]]", unsolvable), kb, str(args.unsolvable))
    corpus = load_dialogues(args.dialogues)
    rng = np.random.default_rng(args.seed)
    warn_capped("--n-solvable", args.n_solvable, len(corpus), f"dialogues of {args.dialogues}")
    picks = sorted(rng.choice(len(corpus), size=min(args.n_solvable, len(corpus)), replace=False))
    warn_capped("--n-unsolvable", args.n_unsolvable, len(unsolvable), f"items of {args.unsolvable}")
    items = select_subset(unsolvable, args.n_unsolvable, args.seed)
    systems = build_baselines(names, kb, lm_config=resolved["lm"], seed=cfg.seed, prefilter=cfg.prefilter)
    try:
        concurrency = auto_concurrency(None, resolved["lm"])  # one thread per local server (lm.servers)
        table = decline_table(kb, items, [corpus[i] for i in picks], systems, concurrency=concurrency)
    finally:
        for system in systems.values():
            getattr(system, "close", lambda: None)()
    scores = decline_scores(table)
    out.mkdir(parents=True, exist_ok=True)
    commit_files(  # the decisions and the scores computed from them: one commit
        {
            out / "llm_decisions.parquet": lambda t: table.to_parquet(t, index=False),
            out / "llm_abstention.csv": lambda t: scores.to_csv(t, index=False, float_format="%.6g"),
        },
        marker=out / "llm_abstention.csv",
    )
    print(out)
    return 0


def add_abstention(sub: Any) -> None:
    """Add ``stats abstention`` and ``stats abstention-llm`` to the group's subparsers ``sub``."""
    abst = sub.add_parser("abstention", help="rankers' abstention on the unsolvable set (TravelBench, tau sweep)")
    add_kb(abst, required=True)
    add_dialogues(abst, "the solvable corpus (JSON lines)", required=True)
    abst.add_argument("--unsolvable", required=True, help="trace-crs dialogues unsolvable output")
    abst.add_argument("--n-solvable", type=int, default=300, help="seeded sample of solvable dialogues")
    add_seed(abst, "seed of the solvable sample")
    add_out(abst, "output directory", required=True, path=True)
    abst.set_defaults(func=run_abstention)
    allm = sub.add_parser("abstention-llm", help="LLM baselines on the unsolvable set ([Unsolved] rule in the prompt)")
    add_config(
        allm,
        "a run config (its evaluate: section: LLM baselines, lm)",
        "override a config key, e.g. lm.model=…",
        required=True,
    )
    add_baselines(allm, "restrict to these LLM baselines (comma-separated)")
    add_kb(allm, required=True)
    add_dialogues(allm, "the corpus (solvable dialogues are sampled from it)", required=True)
    allm.add_argument("--unsolvable", required=True, help="trace-crs dialogues unsolvable output")
    allm.add_argument(
        "--n-unsolvable", type=int, default=None, help="seeded subset of the unsolvable items (default all)"
    )
    allm.add_argument("--n-solvable", type=int, default=300, help="solvable dialogues sampled (default 300)")
    add_seed(allm, "seed of the samples and the LLM baselines")
    add_out(allm, "output directory (llm_abstention.csv, llm_decisions.parquet)", required=True, path=True)
    allm.set_defaults(func=run_abstention_llm)
