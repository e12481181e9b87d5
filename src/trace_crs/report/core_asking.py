"""CoRE with asking against without (seed 001 §3.1: Proactiveness and Recoverability presume a
system that can ask; TravelBench's user answers from its profile): per baseline, CoRE-Avg,
Proactiveness and Recoverability on the same live conversations held by the ask-capable system
and by its no-ask variant — same dialogue, same simulated user, same judge — as the paired
difference *with − without* with n and a dialogue-bootstrap interval
(:func:`trace_crs.stats.bootstrap.bootstrap_pairs`).

Reads only saved judge records (``trace-crs judge core`` on ``judge transcripts --live``),
keyed by conversation id ``<baseline>/<dialogue_id>``: :data:`PAIRS` lists, per family, the
judged file of the conversations *with* asking and the one *without* (``mk/judge.mk``): the
non-LLM rankers with the ask policy of :mod:`trace_crs.live.ask` (``live_ask``) against
``live``; the LLM baselines, whose live run may ask (``live_llm``, ``--ask 1``), against their
no-ask run (``live_llm_noask``, ``make judge-live-noask``: not part of ``make paper``).  A
conversation counts for a metric when the judge rated it on both sides; one rated on a single
side is counted in ``n_unpaired``, not used.

:func:`effect` is the one with-minus-without computation of the CoRE chapter: the live TSR and
T2R table (:func:`trace_crs.report.core_live.asking_effect`) feeds it the live runs' per-dialogue
scores in the same paired form.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.judge.records import read_judged
from trace_crs.report import compare
from trace_crs.stats.bootstrap import N_BOOT, bootstrap_pairs

NAME = "core_live_asking_judged"
# (with asking, without), judge A's records relative to the results directory
PAIRS: tuple[tuple[str, str], ...] = (
    ("judge/live_ask/core_a.jsonl", "judge/live/core_a.jsonl"),
    ("judge/live/core_a.jsonl", "judge/live_llm_noask/core_a.jsonl"),
)
METRICS: tuple[str, ...] = ("core_avg", "proactiveness", "recoverability")
# What :func:`effect` computes for one (baseline, metric): both sides' means, their difference
# and its interval; the live TSR/T2R table (core_live.ASK_COLUMNS) reports the same.
EFFECT_COLUMNS: tuple[str, ...] = ("without_ask", "with_ask", "delta", "ci_low", "ci_high", "verdict")
COLUMNS = ["Baseline", "baseline", "metric", "n", *EFFECT_COLUMNS, "n_unpaired"]


def paired(with_path: Path, without_path: Path) -> pd.DataFrame:
    """Every conversation of a baseline judged on both sides: ``baseline, dialogue_id`` and
    ``<metric>_with`` / ``<metric>_without`` for each of :data:`METRICS`, NaN where the judge
    failed or the conversation was judged on one side only (so :func:`effect` counts it in
    ``n_unpaired``). Baselines present in one file only are not compared: ``judge/live`` holds
    every baseline, its no-ask counterpart only the LLM ones."""
    sides = []
    for path, suffix in ((with_path, "_with"), (without_path, "_without")):
        df = read_judged(path)
        df = df.assign(baseline=df["system"], conversation=df["dialogue_id"])[["baseline", "conversation", *METRICS]]
        sides.append(df.rename(columns={m: m + suffix for m in METRICS}))
    common = set(sides[0]["baseline"]) & set(sides[1]["baseline"])
    sides = [s[s["baseline"].isin(common)] for s in sides]
    both = sides[0].merge(sides[1], on=["baseline", "conversation"], how="outer", sort=True)
    both["dialogue_id"] = [c.partition("/")[2] for c in both["conversation"]]  # (an empty merge too)
    return both.drop(columns="conversation")


def effect(
    both: pd.DataFrame, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED, metrics: Sequence[str] = METRICS
) -> pd.DataFrame:
    """One row per (baseline, metric) of a paired frame like :func:`paired`'s (``baseline,
    dialogue_id, <metric>_with, <metric>_without``): the mean of each side over the dialogues
    scored on both, their difference *with − without* and its paired dialogue-bootstrap interval
    (:func:`~trace_crs.stats.bootstrap.bootstrap_pairs`, one call per row), ``n`` such dialogues
    and ``n_unpaired`` scored on one side only (module docstring)."""
    rows = []
    for name, g in both.groupby("baseline", sort=True):
        for metric in metrics:
            ok = g[g[f"{metric}_with"].notna() & g[f"{metric}_without"].notna()]
            row = {"Baseline": compare.label(str(name)), "baseline": name, "metric": metric, "n": len(ok)}
            row["n_unpaired"] = int((g[f"{metric}_with"].notna() | g[f"{metric}_without"].notna()).sum()) - len(ok)
            if ok.empty:
                rows.append(row | {"verdict": "no conversation rated on both sides"})
                continue
            long = pd.concat(
                [
                    pd.DataFrame({"baseline": "with", "dialogue_id": ok["dialogue_id"], metric: ok[f"{metric}_with"]}),
                    pd.DataFrame(
                        {"baseline": "without", "dialogue_id": ok["dialogue_id"], metric: ok[f"{metric}_without"]}
                    ),
                ]
            )
            got = bootstrap_pairs(long, [("with", "without", metric)], n_boot=n_boot, seed=seed, source="judged").iloc[
                0
            ]
            rows.append(
                row
                | {
                    "without_ask": float(ok[f"{metric}_without"].mean()),
                    "with_ask": float(ok[f"{metric}_with"].mean()),
                    **{k: got[k] for k in ("delta", "ci_low", "ci_high", "verdict")},
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def load(results_dir: str | Path, pairs: tuple[tuple[str, str], ...] = PAIRS, n_boot: int = N_BOOT) -> pd.DataFrame:
    """:func:`effect` over every pair of judged files that both exist; empty when none does."""
    parts = [
        paired(Path(results_dir) / w, Path(results_dir) / wo)
        for w, wo in pairs
        if (Path(results_dir) / w).exists() and (Path(results_dir) / wo).exists()
    ]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return effect(pd.concat(parts, ignore_index=True), n_boot=n_boot)


def facts(df: pd.DataFrame) -> dict[str, float | int]:
    """Numbers cited in the chapter's prose: baselines compared, conversations paired on
    CoRE-Avg, and the largest n of any row."""
    core = df[df["metric"] == "core_avg"]
    return {
        "ask_judged_baselines": int((core["n"] > 0).sum()),
        "ask_judged_pairs": int(core["n"].sum()),
        "ask_judged_max_n": int(np.nanmax(df["n"])) if not df.empty else 0,
    }
