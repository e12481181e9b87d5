"""Are LLM Zero-Shot's replies in ``choice`` mode (:mod:`trace_crs.baselines.choice`) as usable as
in the default ``logprob`` mode (fit questions, then a reply over the top cards)?  The whole
baseline, as ``trace-crs evaluate`` runs it, on the same held-out turns with the local model.

The dialogues are :mod:`bench_fit_layout`'s held-out sample: a seeded sample of the profile's
dialogues outside the LLM runs' evaluated subset, closed pool, so a layout is never chosen on the
dialogues the book reports.  Each arm is one ``trace-crs evaluate --set lm.mode=<arm>`` run (LM
records off, one llama.cpp thread; a finished arm's run is kept and not run again), scored by
``trace-crs score`` with the profile's ``closed_llm`` score settings (no judge) and per turn.
Per arm: CGS, GS, R@1, MRR, the share of turns whose reply cites a review (CiteDensity > 0), the share
of bare replies (three words or fewer: a letter, a name), mean prompt and completion tokens; the
paired ``choice − logprob`` difference of CGS, R@1 and the cited share with a 95 % bootstrap
interval over dialogues.  Tokens per turn against the turn's new text are ``bench_prompt_layout.py``'s.

    python bench/bench_choice_replies.py --n 16 --work /tmp/choice-replies --out bench/results/choice_replies.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from bench_fit_layout import add_sample_args, held_out, sample_record
from bench_prompt_layout import code_commit

from trace_crs.atomic import write_json
from trace_crs.baselines import choice

BASELINE = "llm_zero_shot"
METRICS = ("cgs", "gs", "recall@1", "mrr", "cited", "bare")
PAIRED = ("cgs", "recall@1", "cited")


def run_arm(args: argparse.Namespace, dialogues: Path, arm: str) -> Path:
    """Evaluate and score one arm under ``args.work/<arm>`` (kept when already finished)."""
    out = Path(args.work) / arm
    cli = [str(Path(sys.executable).parent / "trace-crs")]
    env = {**os.environ, "TRACE_LM_THREADS": str(args.threads), "TRACE_LM_RECORDS": "off"}
    kb = f"data/kb/{args.profile}"
    if not (out / "MANIFEST.json").exists():
        subprocess.run(
            [*cli, "evaluate", "--kb", kb, "--dialogues", str(dialogues), "--baselines", BASELINE, "--pool", "closed",
             "--seed", str(args.seed), "--set", f"lm.weights={args.weights}", "--set", f"lm.mode={arm}",
             "--cache-dir", str(Path(args.work) / "cache"), "--quiet", "--out", str(out)],
            check=True, env=env,
        )  # fmt: skip
    per_turn = out / "per_turn.csv"
    subprocess.run(
        [*cli, "score", "--kb", kb, "--dialogues", str(dialogues), "--predictions",
         str(out / "predictions" / f"{BASELINE}.jsonl"), "--config", f"configs/{args.profile}/closed_llm.yaml",
         "--set", "judge=none", "--per-turn", str(per_turn), "--out", str(out / "score.json"), "--quiet"],
        check=True, env=env,
    )  # fmt: skip
    return out


def turn_table(out: Path) -> pd.DataFrame:
    """Per turn: the scorer's metrics, whether the reply cites (CiteDensity > 0), whether it is
    bare, its tokens."""
    scored = pd.read_csv(out / "per_turn.csv")
    scored["cited"] = (scored["cd"] > 0).astype(float)
    preds = pd.read_parquet(out / "records.parquet")
    preds["bare"] = preds["text"].map(lambda t: float(len(str(t).split()) <= 3))
    keep = ["dialogue_id", "turn_id", "bare", "prompt_tokens", "completion_tokens"]
    return scored.merge(preds[keep], on=["dialogue_id", "turn_id"], how="inner", validate="one_to_one")


def summarize(tables: dict[str, pd.DataFrame], base: str, other: str, reps: int = 2000) -> dict[str, Any]:
    """Per arm means of :data:`METRICS` and tokens; paired ``other − base`` of :data:`PAIRED`, 95 %
    bootstrap over dialogues (turns of a resampled dialogue kept together)."""
    out: dict[str, Any] = {}
    for arm, t in tables.items():
        out[arm] = {m: float(t[m].mean()) for m in (*METRICS, "prompt_tokens", "completion_tokens")}
        out[arm]["n_turns"] = len(t)
    paired = tables[base].merge(tables[other], on=["dialogue_id", "turn_id"], suffixes=("_a", "_b"), validate="1:1")
    dialogues = sorted(paired["dialogue_id"].unique())
    groups = {d: paired[paired["dialogue_id"] == d] for d in dialogues}
    rng = np.random.default_rng(42)
    draws = {m: [] for m in PAIRED}
    for _ in range(reps):
        sel = pd.concat([groups[d] for d in rng.choice(dialogues, size=len(dialogues))])
        for m in PAIRED:
            draws[m].append(float(sel[f"{m}_b"].mean() - sel[f"{m}_a"].mean()))
    for m in PAIRED:
        out[f"{m}_diff"] = {
            "estimate": float(paired[f"{m}_b"].mean() - paired[f"{m}_a"].mean()),
            "ci95": [float(np.percentile(draws[m], 2.5)), float(np.percentile(draws[m], 97.5))],
        }
    out["n_turns"], out["n_dialogues"] = len(paired), len(dialogues)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sample_args(p, 16, "llama.cpp threads of each run")
    p.add_argument("--arms", nargs=2, default=["logprob", "choice"], help="the base mode, then the other")
    p.add_argument("--work", required=True, help="directory of the arms' runs (kept; a finished arm is reused)")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    _, sample = held_out(args)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    dialogues = work / "dialogues.jsonl"
    dialogues.write_text("".join(json.dumps(d) + "\n" for d in sample))
    tables = {arm: turn_table(run_arm(args, dialogues, arm)) for arm in args.arms}
    result = {
        "date": dt.date.today().isoformat(),
        "commit": code_commit(),
        "profile": args.profile,
        "weights": args.weights,
        "choice_prompt": choice.PROMPT_VERSION,
        "threads": args.threads,
        "sample": sample_record(args),
        "summary": summarize(tables, *args.arms),
    }
    write_json(result, args.out, indent=1)
    print(json.dumps(result["summary"], indent=1))


if __name__ == "__main__":
    main()
