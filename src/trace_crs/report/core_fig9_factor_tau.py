"""CoRE Fig. 9 on Trace: how consistently one evaluator ranks the systems across the twelve
factors (seed 001 §7.1.2, "Fig. 9") — for each evaluator, Kendall's τ_b (in percent) between
the system rankings of every pair of factors, a system's score on a factor being its mean
rating (0–4) over its judged transcripts.

Reads only saved outputs: the judge records of ``trace-crs judge core`` (one evaluator per
file, :data:`EVALUATORS`) and, when given, a human-label file of CoRE factor ratings (lines
naming their ``system``; :func:`trace_crs.judge.records.read_ratings`).  τ_b is
:func:`trace_crs.metrics.judge.cross_judge_agreement` (scipy's ``kendalltau``, variant b); a
pair of factors is NaN when fewer than two systems have both rated or a factor gives every
system the same mean (no ranking).  With k systems τ takes few values (k = 2: ±100 only), so
every cell carries its number of systems.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.judge.factors import FACTORS, factors
from trace_crs.judge.records import read_ratings
from trace_crs.metrics.judge import cross_judge_agreement
from trace_crs.report import figures

NAME = "core_fig9_factor_tau"
# evaluator shown -> its judge records, relative to the results directory (mk/judge.mk)
EVALUATORS: dict[str, str] = {
    "judge A, replayed": "judge/closed/core_a.jsonl",
    "judge B, replayed": "judge/closed/core_b.jsonl",
    "judge A, live": "judge/live/core_a.jsonl",
}
COLUMNS = ["evaluator", "factor_a", "factor_b", "tau_b", "n_systems"]


def short(name: str) -> str:
    """The paper's axis abbreviation of a factor (Fig. 9 caption: ``Coh.``, ``Rec.`` …)."""
    return factors()[name].label[:3] + "."


def system_means(ratings: pd.DataFrame) -> pd.DataFrame:
    """Systems × factors: each system's mean rating per factor over its rated transcripts
    (unrated ones ignored); systems without any rating dropped.  ``ratings`` is
    :func:`read_ratings`' frame."""
    named = ratings[ratings["system"].notna()]
    means = named.groupby("system", sort=True)[list(FACTORS)].mean()
    return means.dropna(how="all")


def factor_tau(means: pd.DataFrame) -> pd.DataFrame:
    """τ_b (percent) between the system rankings of every ordered pair of factors (long frame,
    ``factor_a, factor_b, tau_b, n_systems``)."""
    rows = []
    for a in FACTORS:
        col_a = means[a].dropna().to_dict()
        for b in FACTORS:
            got = cross_judge_agreement(col_a, means[b].dropna().to_dict())
            rows.append(
                {"factor_a": a, "factor_b": b, "tau_b": 100 * got["kendall_tau"], "n_systems": got["n_systems"]}
            )
    return pd.DataFrame(rows, columns=COLUMNS[1:])


def load(
    results_dir: str | Path, evaluators: dict[str, str] | None = None, human: str | Path | None = None
) -> pd.DataFrame:
    """Fig. 9's numbers for every evaluator whose file exists and rated at least one system
    (``Human`` first when ``human`` labels are given); empty when none did."""
    sources: list[tuple[str, Path, bool]] = [("Human", Path(human), True)] if human else []
    sources += [(name, Path(results_dir) / rel, False) for name, rel in (evaluators or EVALUATORS).items()]
    parts = []
    for name, path, is_human in sources:
        if not path.exists():
            continue
        means = system_means(read_ratings(path, human=is_human))
        if not means.empty:
            parts.append(factor_tau(means).assign(evaluator=name))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers cited in the page's prose: evaluators shown, the fewest systems any cell rests
    on, and per evaluator the mean off-diagonal τ_b (NaN cells ignored)."""
    off = df[df["factor_a"] != df["factor_b"]]
    out: dict[str, Any] = {
        "n_evaluators": int(df["evaluator"].nunique()),
        "min_systems": int(df["n_systems"].min()) if not df.empty else 0,
        "max_systems": int(df["n_systems"].max()) if not df.empty else 0,
    }
    means = off.groupby("evaluator", sort=False)["tau_b"].mean()
    out["mean_tau"] = float(means.mean()) if means.notna().any() else float("nan")
    return out


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> list[Figure]:
    """One 12 × 12 matrix per evaluator (τ_b in percent, −100 to 100, written in each cell)."""
    figs = []
    ticks = [short(f) for f in FACTORS]
    for k, (name, d) in enumerate(df.groupby("evaluator", sort=False)):
        grid = d.pivot(index="factor_a", columns="factor_b", values="tau_b").reindex(index=FACTORS, columns=FACTORS)
        values = grid.to_numpy(float)
        fig, ax = plt.subplots(figsize=(7.5, 6.8))
        im = ax.imshow(np.ma.masked_invalid(values), vmin=-100, vmax=100, cmap="BrBG_r")
        for (i, j), v in np.ndenumerate(values):
            ax.text(j, i, "—" if np.isnan(v) else f"{v:.0f}", ha="center", va="center", fontsize=9,
                    color="white" if abs(np.nan_to_num(v)) > 60 else "black")  # fmt: skip
        ax.set_xticks(range(len(FACTORS)), ticks, rotation=90)
        ax.set_yticks(range(len(FACTORS)), ticks)
        n = sorted(set(d["n_systems"]))
        systems = f"{n[0]}" if len(n) == 1 else f"{n[0]}–{n[-1]}"
        ax.set_title(f"{name}: τ_b (%) between factor rankings, {systems} systems")
        fig.colorbar(im, ax=ax, label="τ_b (%)", shrink=0.8)
        figs.append(figures.save(fig, f"{NAME}_{k + 1}", figures_dir))
    return figs
