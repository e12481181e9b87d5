"""Shared layout of the sensitivity analyses (paper Appendix L, Tables 16–19 and 22).

One module per table (``t16_fuzzy_threshold``, ``t17_entailment_vs_fuzzy``,
``t18_spatial_threshold``, ``t19_antigaming``, ``t22_cgs_variants``) and per untabled analysis
(``cgs_formula_variants``, ``grounding_independence``, ``nli_threshold``, ``nli_bimodality``)
lays its result out with these helpers: a threshold sweep (``trace_crs.stats.sweeps``) beside
the printed table, aggregates beside the printed table, and their plots and prose facts.
Statistics come from ``trace_crs.stats``, scores from ``trace_crs.metrics``.  The analyses that
re-score runs (Tables 16, 18, the NLI sweep and bimodality, Figure 6) are computed upstream by
``trace-crs stats sensitivity`` (``mk/sensitivity.mk``) into
``results/<profile>/sensitivity/<name>.parquet``; :func:`load_saved` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results

COUNT_COLUMNS = ("n_turns", "p_value")  # not compared in the mean absolute difference
SAVED_DIR = "sensitivity"  # results/<profile>/sensitivity/<name>.parquet (trace-crs stats sensitivity)


def load_saved(results_dir: str | Path, name: str, runs: Sequence[str]) -> pd.DataFrame:
    """The saved analysis ``name``; its ``run`` column must name exactly ``runs``."""
    path = results.require(
        Path(results_dir) / SAVED_DIR / f"{name}.parquet", f"sensitivity analysis '{name}' (mk/sensitivity.mk)"
    )
    frame = pd.read_parquet(path)
    made = sorted(set(frame["run"]))
    if made != sorted(runs):
        raise ValueError(
            f"{path} was computed on runs {made}, the notebook asks for {sorted(runs)}: "
            "re-run its make stage with those runs (mk/sensitivity.mk)"
        )
    return frame


def published_sweep(printed: str, sweep: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """Saved sweep (``stats.sweeps`` with ``run, n_dialogues``) beside the printed table
    ``printed``; ``columns`` maps the printed column labels to settings; adds ``rank_rho_vs_default``."""
    label = {str(s): col for col, s in columns.items()}  # settings may be saved as text ("exact")
    setting = sweep["setting"].astype(str)
    wide = sweep.assign(column=setting.map(lambda s: label.get(s, s))).pivot(
        index="baseline", columns="column", values="value"
    )
    meta = sweep.drop_duplicates("baseline").set_index("baseline")
    ours = wide.assign(run=meta["run"].reindex(wide.index), n_dialogues=meta["n_dialogues"].reindex(wide.index))
    long = compare.side_by_side(paper.table(printed), ours, {c: c for c in columns})
    rho = sweep.assign(setting=setting).drop_duplicates("setting").set_index("setting")["rank_rho_vs_default"]
    long["rank_rho_vs_default"] = long["column"].map({label.get(s, s): float(r) for s, r in rho.items()})
    return long


def aggregates_vs_paper(
    results_dir: str | Path, runs: Sequence[str], printed: str, columns: Mapping[str, str]
) -> pd.DataFrame:
    """The runs' aggregates (with ``gap`` = GS − entailment) beside the printed table."""
    ours = results.metric_table(results.load_aggregates(results_dir, runs))
    gs, ent = (ours.get(c, pd.Series(np.nan, index=ours.index)).astype(float) for c in ("gs", "entailment"))
    return compare.side_by_side(paper.table(printed), ours.assign(gap=gs - ent), columns)


def aggregates_table(
    name: str, printed: str, columns: Mapping[str, str], title: str
) -> tuple[Callable[..., pd.DataFrame], Callable[..., Figure]]:
    """A reported-vs-reproduced aggregates table's ``load(results_dir, runs=("closed",
    "closed_llm"))`` (:func:`aggregates_vs_paper` of ``columns``) and ``plot(df, figures_dir)``
    (:func:`compare.plot` titled ``title``, saved as ``figures/<name>``)."""

    def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
        return aggregates_vs_paper(results_dir, runs, printed, columns)

    def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
        return figures.save(compare.plot(df, title), name, figures_dir)

    load.__doc__ = f"Reported vs reproduced {title.split(':')[0]} (the printed ``{printed}``)."
    plot.__doc__ = f"Ours vs printed; saved as ``figures/{name}``."
    return load, plot


def sweep_plot(df: pd.DataFrame) -> Figure:
    """One line per baseline over the settings: ours solid, printed dashed."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    cols = list(dict.fromkeys(df["column"]))
    for key, part in df.groupby("Baseline", sort=False):
        part = part.set_index("column").reindex(cols)
        line = ax.plot(cols, part["ours"], marker="o", label=key)[0]
        ax.plot(cols, part["paper"], ls="--", color=line.get_color(), alpha=0.6)
    ax.set(xlabel="setting", ylabel="value (solid: this run, dashed: paper)")
    ax.legend(fontsize=7, ncol=2)
    return fig


def bars(
    df: pd.DataFrame,
    x: str,
    y: str,
    ylabel: str,
    band: tuple[float, float] | None = None,
    band_label: str = "paper's range",
) -> Figure:
    """Dot chart of ``y`` by ``x`` (dots, not bars: values near 1 differ in the second decimal and a
    bar from 0 would hide that), with the paper's printed range ``band`` shaded; the y axis spans
    the data and the band with a small margin."""
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    values = df[y].astype(float)
    ax.plot(df[x].astype(str), values, "o", ms=7, label="this run")
    span = [v for v in (*values.dropna(), *(band or ())) if v == v]
    lo, hi = (min(span), max(span)) if span else (0.0, 1.0)
    pad = max(0.02, 0.1 * (hi - lo))
    if band is not None:
        ax.axhspan(band[0], band[1], color="grey", alpha=0.2, label=band_label)
    ax.set(ylabel=ylabel, ylim=(lo - pad, hi + pad))
    ax.tick_params(axis="x", labelrotation=30)
    ax.legend(loc="lower left")
    return fig


def sweep_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Largest change of one baseline across the settings, lowest rank ρ, first/last means."""
    ours = df.dropna(subset=["ours"])
    cols = list(dict.fromkeys(df["column"]))
    spread = ours.groupby("baseline")["ours"].agg(lambda v: v.max() - v.min())
    return {
        "n_baselines": int(ours["baseline"].nunique()),
        "max_spread": float(spread.max()),
        "min_rank_rho": float(df["rank_rho_vs_default"].min()),
        "mean_first": float(ours[ours["column"] == cols[0]]["ours"].mean()),
        "mean_last": float(ours[ours["column"] == cols[-1]]["ours"].mean()),
    }


def comparison_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Baselines and columns compared, and the mean |ours − paper| (counts and p-values left out)."""
    r = df.dropna(subset=["ours"])
    d = r[~r["column"].isin(COUNT_COLUMNS)]["diff"].abs()
    return {
        "n_baselines": int(r["baseline"].nunique()),
        "n_columns": int(r["column"].nunique()),
        "mean_abs_diff": float(d.mean()) if d.notna().any() else float("nan"),
    }
