"""The CoRE chapter (seed 001): CoRE factor scores per baseline on Trace, a debate with its
chat, Table 28's twin (two judges, ranking agreement by
:func:`trace_crs.metrics.judge.cross_judge_agreement`) and CoRE's own reported numbers as a
labelled reference (movie CRS data, not Trace).

Reads only saved outputs: ``<results_dir>/judge/<run>/<judge>.jsonl``, the records of
``trace-crs judge core`` on ``trace-crs judge transcripts --run`` (``mk/judge.mk``).  A judge that
was not run gives an empty frame; :func:`status` says so in words for the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.judge.factors import FACTORS, factors
from trace_crs.judge.records import read_judged
from trace_crs.kb.store import iter_jsonl
from trace_crs.metrics.judge import cross_judge_agreement
from trace_crs.report import compare, figures, paper

NAME = "core_judge_factors"
T28 = "table28_cross_judge"
NAMES = {"factors": NAME, "table28": T28}
# Table 28 compares judges of two model families: judge B is an API model (mk/judge.mk), which an offline build lacks.
T28_NEEDS = "an API judge B of another model family: make judge JUDGE_B_SET=lm.model=<provider/model> (judge A: the local model)"  # every table CSV the chapter writes


def judged_path(results_dir: str | Path, run: str, judge: str) -> Path:
    """Where ``mk/judge.mk`` writes one judge's records for a run."""
    return Path(results_dir) / "judge" / run / f"{judge}.jsonl"


def status(results_dir: str | Path, run: str, judges: Sequence[str]) -> str:
    """One sentence for the page: which judges' outputs exist."""
    have = [j for j in judges if judged_path(results_dir, run, j).exists()]
    if not have:
        return (
            f"**Replayed transcripts are not judged on this profile** (no outputs under "
            f"`{Path(results_dir) / 'judge' / run}`): the live conversations below are judged instead. "
            "`make judge` judges the replayed ones with two judges, judge A the local model and judge B an API "
            "model (`JUDGE_B_SET`), which Table 28 needs; until then its cells and the factor table below are empty."
        )
    return f"Judges run on `{run}`: {', '.join(f'`{j}`' for j in have)}."


def load(results_dir: str | Path, run: str = "closed", judge: str = "core_a") -> pd.DataFrame:
    """Per-baseline means of the 12 factors (0–4), CoRE-Avg, debate score (0–100) and counts;
    empty when the judge was not run.  The notebook writes judge A's to ``tables/core_judge_factors.csv``."""
    path = judged_path(results_dir, run, judge)
    cols = ["Baseline", "baseline", *FACTORS, "core_avg", "debate", "n_transcripts", "n_failed"]
    if not path.exists():
        return pd.DataFrame(columns=cols)
    df = read_judged(path)
    df["failed"] = df[list(FACTORS)].isna().any(axis=1)
    g = df.groupby("system")
    out = g[[*FACTORS, "core_avg", "debate"]].mean()
    out["n_transcripts"], out["n_failed"] = g.size(), g["failed"].sum()
    out = out.reset_index().rename(columns={"system": "baseline"})
    out.insert(0, "Baseline", [compare.label(b) for b in out["baseline"]])
    return out.sort_values("core_avg", ascending=False, kind="stable")[cols].reset_index(drop=True)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure | None:
    """Heat map baseline × factor (0–4); ``None`` when nothing was judged."""
    if df.empty:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(df) + 1.5))
    im = ax.imshow(df[list(FACTORS)].to_numpy(float), vmin=0, vmax=4, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(FACTORS)), [factors()[f].label for f in FACTORS], rotation=45, ha="right")
    ax.set_yticks(range(len(df)), df["Baseline"])
    fig.colorbar(im, ax=ax, label="mean rating (0-4)")
    ax.set_title("CoRE factor ratings per baseline")
    figures.save(fig, NAME, figures_dir)
    return fig


def table28(results_dir: str | Path, run: str = "closed", judges: Sequence[str] = ("core_a", "core_b")) -> pd.DataFrame:
    """Table 28's twin: per-baseline mean CoRE-Avg (0–4) of two judges beside the paper's
    GPT-4o / Claude means (Likert 1–5: a different instrument, so only rankings compare); the
    notebook writes it to ``tables/table28_cross_judge.csv``."""
    means = []
    for j in judges:
        df = load(results_dir, run, j)
        means.append(df.set_index("baseline")["core_avg"].rename(j))
    ours = pd.concat(means, axis=1) if any(len(m) for m in means) else pd.DataFrame(columns=list(judges))
    long = compare.side_by_side(paper.table(T28), ours, {"GPT-4o": judges[0], "Claude": judges[1]})
    missing = [j for j in judges if not judged_path(results_dir, run, j).exists()]
    return compare.needs(long, long["baseline"].notna() & long["metric"].isin(missing), T28_NEEDS)


def agreement(t28: pd.DataFrame) -> dict[str, Any]:
    """Kendall τ / Spearman ρ between the two judges' baseline means (ours) and between the
    paper's two judges (printed), by :func:`cross_judge_agreement`."""
    out = {}
    for side in ("ours", "paper"):
        wide = t28.pivot(index="Baseline", columns="column", values=side)
        a, b = (wide[c].dropna().to_dict() for c in ("GPT-4o", "Claude"))
        out[side] = cross_judge_agreement(a, b)
    return out


def debate_example(results_dir: str | Path, run: str = "closed", judge: str = "core_a") -> pd.DataFrame:
    """The chat of the first transcript with a finished debate: round, evaluator, score, statement."""
    path = judged_path(results_dir, run, judge)
    if not path.exists():
        return pd.DataFrame(columns=["dialogue_id", "round", "evaluator", "score", "statement"])
    for _, rec in iter_jsonl(path):
        deb = rec.get("debate") or {}
        if deb.get("score") is not None:
            return pd.DataFrame(
                [
                    {
                        "dialogue_id": rec["dialogue_id"],
                        **{k: c[k] for k in ("round", "evaluator", "score", "statement")},
                    }
                    for c in deb["chat"]
                ]
            )
    return pd.DataFrame(columns=["dialogue_id", "round", "evaluator", "score", "statement"])


def reported(name: str) -> pd.DataFrame:
    """CoRE's reported Table 7 (``table7_overall``) or Table 22 (``table22_qwk``): reference only."""
    with resources.files("trace_crs.judge").joinpath(f"data/core_reported/{name}.csv").open() as fh:
        return pd.read_csv(fh)


def facts(df: pd.DataFrame, t28: pd.DataFrame) -> dict[str, Any]:
    """Numbers cited in the chapter's prose (NaN when not run)."""
    agree = agreement(t28)
    best = df.iloc[0]["Baseline"] if not df.empty else "n/a"
    return {
        "n_baselines": len(df),
        "best": str(best),
        "tau_ours": agree["ours"]["kendall_tau"],
        "tau_paper": agree["paper"]["kendall_tau"],
        "core_multi_agent_r": float(
            reported("table7_overall").set_index("metric").loc["CoRE (Multi-Agent)", "spearman"]
        ),
        "n_transcripts": int(df["n_transcripts"].sum()) if not df.empty else 0,
        "debate_mean": float(np.nanmean(df["debate"])) if not df.empty and df["debate"].notna().any() else float("nan"),
    }
