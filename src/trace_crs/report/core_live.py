"""CoRE on live conversations (seed 001 §4, on ``trace-crs converse`` transcripts): baselines
ranked by CoRE-Avg on the conversations they actually had with the simulated user, with n and a
dialogue-bootstrap interval, beside the replayed Trace metrics and live TSR, and the rank
agreement (Kendall τ) of CoRE-Avg with each of them.

Reads only saved outputs: ``<results_dir>/judge/live/<judge>.jsonl`` (``make judge-live``: judge
records of ``judge transcripts --live``), ``scores/<run>/<baseline>.json`` of the replayed runs
and ``live/<run>/live_scores.json``.  Each judged transcript is one conversation (its id
``<baseline>/<dialogue_id>``), so the interval resamples dialogues
(:func:`trace_crs.stats.intervals.cluster_mean_ci`).  A transcript on which the judge failed a
factor has no CoRE-Avg and is counted in ``n_failed``, not averaged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs import DEFAULT_SEED
from trace_crs import results_layout as layout
from trace_crs.judge.records import read_judged
from trace_crs.metrics.judge import cross_judge_agreement
from trace_crs.report import compare, core_asking, figures
from trace_crs.stats.bootstrap import N_BOOT
from trace_crs.stats.intervals import cluster_mean_ci

NAME = "core_live_ranking"
TAU = "core_live_tau"
ASKING = "core_live_asking"  # asking_effect
NAMES = {"ranking": NAME, "tau": TAU, "asking": ASKING}  # every table CSV the CoRE page writes from here
REPLAYED_RUNS: tuple[str, ...] = ("closed", "closed_llm")
LIVE_RUNS: tuple[str, ...] = ("live", "live_llm")
REPLAYED_METRICS: tuple[str, ...] = ("recall@1", "mrr", "cgs")
COLUMNS = [
    "Baseline",
    "baseline",
    "n",
    "core_avg",
    "ci_low",
    "ci_high",
    "sufficient",
    "n_failed",
    "debate",
    "persuasiveness",
    "live_tsr",
    "questions_per_dialogue",
    *(f"replayed_{m}" for m in REPLAYED_METRICS),
]


def judged_path(results_dir: str | Path, judge: str = "core_a") -> Path:
    """Where ``make judge-live`` writes one judge's records."""
    return Path(results_dir) / "judge" / "live" / f"{judge}.jsonl"


def replayed(results_dir: str | Path, runs: Sequence[str] = REPLAYED_RUNS) -> dict[str, dict[str, float]]:
    """Baseline → replayed aggregate metrics (the first run that scored it wins)."""
    out: dict[str, dict[str, float]] = {}
    for run in runs:
        for path in sorted(layout.scores_dir(results_dir, run).glob("*.json")):
            metrics = json.loads(path.read_text()).get("metrics") or {}
            out.setdefault(path.stem, {m: metrics.get(m, float("nan")) for m in REPLAYED_METRICS})
    return out


def live_metrics(results_dir: str | Path, runs: Sequence[str] = LIVE_RUNS) -> dict[str, dict[str, Any]]:
    """Baseline → live aggregate metrics of ``live_scores.json``."""
    out: dict[str, dict[str, Any]] = {}
    for run in runs:
        path = Path(results_dir) / "live" / run / "live_scores.json"
        if path.exists():
            for name, agg in json.loads(path.read_text())["baselines"].items():
                out.setdefault(name, agg.get("metrics") or {})
    return out


def load(
    results_dir: str | Path, judge: str = "core_a", n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """One row per judged baseline, best CoRE-Avg first (module docstring); empty when not run."""
    path = judged_path(results_dir, judge)
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    df = read_judged(path)
    df["conversation"] = df["dialogue_id"].str.partition("/")[2]
    rep, live = replayed(results_dir), live_metrics(results_dir)
    rows = []
    for name, g in df.groupby("system", sort=True):
        ci = cluster_mean_ci(
            g.rename(columns={"dialogue_id": "_id", "conversation": "dialogue_id"}),
            "core_avg",
            n_boot=n_boot,
            seed=seed,
        )
        rows.append(
            {
                "Baseline": compare.label(str(name)),
                "baseline": name,
                "n": int(ci["n_clusters"]),
                "core_avg": ci["mean"],
                "ci_low": ci["ci_low"],
                "ci_high": ci["ci_high"],
                "sufficient": ci["sufficient"],
                "n_failed": int(g["core_avg"].isna().sum()),
                "debate": float(g["debate"].mean()) if g["debate"].notna().any() else float("nan"),
                # CoRE Table 7's conventional metric (0-2, judge.persuasive), when the judge rated it
                "persuasiveness": float(g["persuasiveness"].mean())
                if g["persuasiveness"].notna().any()
                else float("nan"),
                "live_tsr": (live.get(name) or {}).get("tsr", float("nan")),
                "questions_per_dialogue": (live.get(name) or {}).get("questions_per_dialogue", float("nan")),
                **{f"replayed_{m}": (rep.get(name) or {}).get(m, float("nan")) for m in REPLAYED_METRICS},
            }
        )
    out = pd.DataFrame(rows, columns=COLUMNS)
    out[["live_tsr", "questions_per_dialogue"]] = out[["live_tsr", "questions_per_dialogue"]].astype(float)
    return out.sort_values("core_avg", ascending=False, kind="stable", na_position="last").reset_index(drop=True)


def tau(df: pd.DataFrame) -> pd.DataFrame:
    """Kendall τ and Spearman ρ of the baselines' CoRE-Avg with each replayed metric and live TSR
    (:func:`trace_crs.metrics.judge.cross_judge_agreement`; NaN with < 2 baselines or no spread)."""
    core = {b: v for b, v in zip(df["baseline"], df["core_avg"], strict=False) if pd.notna(v)}
    rows = []
    for col in ["live_tsr", *(f"replayed_{m}" for m in REPLAYED_METRICS)]:
        other = {b: v for b, v in zip(df["baseline"], df[col], strict=False) if pd.notna(v)}
        rows.append({"against": col, **cross_judge_agreement(core, other)})
    return pd.DataFrame(rows, columns=["against", "kendall_tau", "spearman_rho", "n_systems"])


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure | None:
    """CoRE-Avg per baseline with its 95% interval; ``None`` when nothing was judged."""
    shown = df[df["core_avg"].notna()]
    if shown.empty:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 0.4 * len(shown) + 1.5))
    y = np.arange(len(shown))[::-1]
    err = np.vstack([shown["core_avg"] - shown["ci_low"], shown["ci_high"] - shown["core_avg"]])
    ax.errorbar(shown["core_avg"], y, xerr=np.nan_to_num(err), fmt="o", capsize=3)
    ax.set_yticks(y, [f"{b} (n = {n})" for b, n in zip(shown["Baseline"], shown["n"], strict=False)], fontsize=9)
    ax.set_xlim(0, 4)
    ax.set_xlabel("CoRE-Avg on live conversations (0-4), 95% dialogue-bootstrap interval", fontsize=9)
    fig.tight_layout()
    return figures.save(fig, NAME, figures_dir)


ASK_COLUMNS = ["Baseline", "baseline", "metric", *core_asking.EFFECT_COLUMNS, "n_dialogues", "questions_per_dialogue"]
ASK_METRICS: tuple[str, ...] = ("tsr", "t2r")


def asking_effect(results_dir: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Did asking help?  Per non-LLM baseline, live TSR and T2R with one clarifying question
    allowed (``live/live_ask``, ``converse --ask 1``) minus without (``live/live``), on the same
    dialogues and simulated users: :func:`trace_crs.report.core_asking.effect` (the paired dialogue
    bootstrap; a question costs a turn, so T2R can rise even when TSR does).  ``n_dialogues`` is
    its ``n``.  Empty when either run is missing; a dialogue of a baseline scored in one run only,
    or without a score, is an error (the runs must hold the same dialogues)."""
    paths = [Path(results_dir) / "live" / run / "live_scores.parquet" for run in ("live", "live_ask")]
    if not all(p.exists() for p in paths):
        return pd.DataFrame(columns=ASK_COLUMNS)
    without, with_ask = (pd.read_parquet(p) for p in paths)
    names = sorted(set(without["baseline"]) & set(with_ask["baseline"]))
    if not names:
        return pd.DataFrame(columns=ASK_COLUMNS)
    keys, metrics = ["baseline", "dialogue_id"], list(ASK_METRICS)
    with_side, without_side = (
        side[side["baseline"].isin(names)].set_index(keys)[metrics].add_suffix(suffix)
        for side, suffix in ((with_ask, "_with"), (without, "_without"))
    )
    both = with_side.join(without_side, how="outer").reset_index()
    unpaired = both[both.drop(columns=keys).isna().any(axis=1)]
    if len(unpaired):
        raise ValueError(
            f"{paths[1]} vs {paths[0]}: {len(unpaired)} dialogue(s) not scored in both runs, e.g. "
            f"{unpaired[keys].head(3).to_dict('records')}; the paired comparison needs every dialogue on both sides"
        )
    out = core_asking.effect(both, n_boot=n_boot, seed=seed, metrics=metrics).rename(columns={"n": "n_dialogues"})
    asked = with_ask.groupby("baseline")["n_questions"].mean() if "n_questions" in with_ask else pd.Series(dtype=float)
    out["questions_per_dialogue"] = out["baseline"].map(asked)
    return out[ASK_COLUMNS].reset_index(drop=True)


def facts(df: pd.DataFrame, taus: pd.DataFrame) -> dict[str, Any]:
    """Numbers cited in the chapter's prose (NaN / "n/a" when not run)."""
    by = taus.set_index("against") if not taus.empty else pd.DataFrame()
    get = lambda col: float(by.loc[col, "kendall_tau"]) if col in by.index else float("nan")  # noqa: E731
    return {
        "live_n_baselines": int(df["core_avg"].notna().sum()),
        "live_best": str(df.iloc[0]["Baseline"]) if df["core_avg"].notna().any() else "n/a",
        "live_n_conversations": int(df["n"].sum()) if not df.empty else 0,
        "live_tau_recall1": get("replayed_recall@1"),
        "live_tau_cgs": get("replayed_cgs"),
        "live_tau_tsr": get("live_tsr"),
    }
