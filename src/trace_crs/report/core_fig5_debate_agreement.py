"""CoRE Fig. 5 on Trace: the turn-wise evolution of agreement across the debate's rounds
(seed 001 §4.2, "Fig. 5"): per system, the share of debates in which *All Agree* (all four
evaluators give the same 0–100 score) and *Major Agree* (at least three of the four give the
same score) hold after each round.

Reads only saved judge outputs (``trace-crs judge core --aggregator debate``): every debate's
chat records each evaluator's score with its ``round`` (:mod:`trace_crs.judge.debate`), so no
LLM call is made here.  Our debate stops at unanimity (CoRE §4.2: "until consensus or the
maximum number of rounds"); a debate that stopped unanimous at round *k* is counted as All
Agree (and Major Agree) at every later round — carried forward, the number carried is shown —
and a debate that ended at ``max_rounds`` without unanimity has no later rounds, so the curve
ends at the largest ``max_rounds`` judged.  CoRE's analysis ran ten rounds on a 15% sample;
``make judge-rounds`` (``mk/judge.mk``, ``--max-rounds 10``) is that run.  A debate that failed
(an unusable statement after every re-ask) is left out of every round and counted in
``n_failed``.  Intervals: Wilson 95% over the debates of a round.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.judge.factors import ROLES
from trace_crs.kb.store import iter_jsonl
from trace_crs.report import compare, figures
from trace_crs.stats.intervals import wilson

NAME = "core_fig5_debate_agreement"
ALL = "All systems"
# Where the debates are, relative to the results directory: CoRE's 10-round analysis run
# (``make judge-rounds``), the replayed two-judge run's debate (``make judge``) and the live
# conversations when judged with ``JUDGE_LIVE_AGG=debate``.
SOURCES: dict[str, str] = {
    "10-round analysis": "judge/closed/rounds.jsonl",
    "replayed": "judge/closed/core_a.jsonl",
    "live": "judge/live/core_a.jsonl",
}
COLUMNS = [
    "source",
    "Baseline",
    "baseline",
    "round",
    "n",
    "all_agree",
    "all_ci_low",
    "all_ci_high",
    "major_agree",
    "major_ci_low",
    "major_ci_high",
    "n_carried",
    "n_failed",
]


def agreement(scores: Sequence[float], evaluators: int = len(ROLES)) -> tuple[bool, bool]:
    """``(all_agree, major_agree)`` of one round's scores: all ``evaluators`` gave the same
    score; at least ``evaluators − 1`` (three of four) gave the same score."""
    if len(scores) != evaluators:
        raise ValueError(f"a round needs {evaluators} scores, got {len(scores)}")
    top = Counter(scores).most_common(1)[0][1]
    return top == evaluators, top >= evaluators - 1


def rounds_of(debate: dict[str, Any]) -> list[tuple[bool, bool]] | None:
    """Per held round, its :func:`agreement`; ``None`` for a debate that failed (no score)."""
    if debate.get("score") is None or not debate.get("chat"):
        return None
    by_round: dict[int, list[float]] = {}
    for s in debate["chat"]:
        by_round.setdefault(int(s["round"]), []).append(s["score"])
    return [agreement(by_round[r]) for r in sorted(by_round)]


def per_debate(path: str | Path) -> pd.DataFrame:
    """One row per judged transcript with a debate: ``baseline, failed, rounds`` (the list of
    :func:`rounds_of`, empty when failed).  Transcripts judged without a debate are skipped."""
    rows = []
    for _, rec in iter_jsonl(path):
        deb = rec.get("debate")
        if not deb:
            continue
        got = rounds_of(deb)
        rows.append({"baseline": rec.get("system") or "unknown", "failed": got is None, "rounds": got or []})
    return pd.DataFrame(rows, columns=["baseline", "failed", "rounds"])


def curve(debates: pd.DataFrame) -> pd.DataFrame:
    """The round-by-round shares of one group of debates (module docstring: carried forward
    after a unanimous stop, none after a non-unanimous end)."""
    held = debates[~debates["failed"]]
    n_failed = int(debates["failed"].sum())
    last = max((len(r) for r in held["rounds"]), default=0)
    rows = []
    for r in range(1, last + 1):
        n = k_all = k_major = carried = 0
        for rounds in held["rounds"]:
            if len(rounds) >= r:
                n, k_all, k_major = n + 1, k_all + rounds[r - 1][0], k_major + rounds[r - 1][1]
            elif rounds[-1][0]:  # stopped unanimous earlier: still agreeing
                n, k_all, k_major, carried = n + 1, k_all + 1, k_major + 1, carried + 1
        rows.append(
            {"round": r, "n": n, "k_all": k_all, "k_major": k_major, "n_carried": carried, "n_failed": n_failed}
        )
    return pd.DataFrame(rows, columns=["round", "n", "k_all", "k_major", "n_carried", "n_failed"])


def load(results_dir: str | Path, sources: dict[str, str] | None = None) -> pd.DataFrame:
    """Fig. 5's numbers for every source with debates: one row per (source, system, round),
    systems pooled as ``All systems`` first; empty when no debate was judged.  Written by the
    notebook to ``tables/core_fig5_debate_agreement.csv``."""
    parts = []
    for source, rel in (sources or SOURCES).items():
        path = Path(results_dir) / rel
        debates = per_debate(path) if path.exists() else pd.DataFrame()
        if debates.empty:
            continue
        groups = [(ALL, debates)] + list(debates.groupby("baseline", sort=True))
        for name, g in groups:
            c = curve(g)
            if c.empty:
                continue
            c["all_agree"], c["major_agree"] = c["k_all"] / c["n"], c["k_major"] / c["n"]
            c["all_ci_low"], c["all_ci_high"] = wilson(c["k_all"], c["n"])
            c["major_ci_low"], c["major_ci_high"] = wilson(c["k_major"], c["n"])
            label = ALL if name == ALL else compare.label(str(name))
            parts.append(c.assign(source=source, Baseline=label, baseline=str(name)))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers cited in the page's prose: the debates counted, and the pooled All-Agree /
    Major-Agree shares at round 1 and at the last round of the first source shown."""
    nan = float("nan")
    pooled = df[df["baseline"] == ALL]
    if pooled.empty:
        return {"source": "none", "n_debates": 0, "rounds": 0, "all_first": nan, "all_last": nan,
                "major_first": nan, "major_last": nan}  # fmt: skip
    first = pooled[pooled["source"] == pooled["source"].iloc[0]]
    return {
        "source": str(first["source"].iloc[0]),
        "n_debates": int(first["n"].iloc[0] + first["n_failed"].iloc[0]),
        "rounds": int(first["round"].max()),
        "all_first": float(first["all_agree"].iloc[0]),
        "all_last": float(first["all_agree"].iloc[-1]),
        "major_first": float(first["major_agree"].iloc[0]),
        "major_last": float(first["major_agree"].iloc[-1]),
    }


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> list[Figure]:
    """One figure per source: a panel per system (pooled first), All Agree and Major Agree
    against the round with Wilson 95% bands; no figure when nothing was judged."""
    figs = []
    for source, d in df.groupby("source", sort=False):
        names = list(dict.fromkeys(d["Baseline"]))
        cols = min(3, len(names))
        rows = math.ceil(len(names) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(7.5, 2.2 * rows + 0.6), squeeze=False, sharey=True)
        for ax, name in zip(axes.flat, names, strict=False):
            g = d[d["Baseline"] == name]
            for key, style, label in (("all", "-o", "All Agree"), ("major", "--s", "Major Agree")):
                (line,) = ax.plot(g["round"], g[f"{key}_agree"], style, label=label, markersize=4)
                ax.fill_between(g["round"], g[f"{key}_ci_low"], g[f"{key}_ci_high"], alpha=0.15, color=line.get_color())
            ax.set_title(f"{name} (n = {int(g['n'].iloc[0])})", fontsize=9)
            ax.set_ylim(0, 1.02)
            ax.set_xticks(list(g["round"]))
            ax.set_xlabel("round", fontsize=9)
        for ax in axes.flat[len(names) :]:
            ax.set_visible(False)
        axes[0][0].set_ylabel("share of debates", fontsize=9)
        axes[0][0].legend(fontsize=9, loc="lower right")
        fig.suptitle(f"Agreement of the four debaters per round ({source} debates)", fontsize=10)
        slug = str(source).replace(" ", "_").replace("-", "_")
        figs.append(figures.save(fig, f"{NAME}_{slug}", figures_dir))
    return figs
