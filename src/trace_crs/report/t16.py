"""Sensitivity analyses (paper Appendix L): Tables 16–19 and 22, CGS formula variants, grounding
metric independence, NLI-threshold sweep and the bimodality check.

``load(results_dir, part=...)`` with ``part`` one of :data:`PARTS`; every statistic comes from
``trace_crs.stats`` (``sweeps``, ``cgs_variants``, ``checks``) and every score from
``trace_crs.metrics``:

* ``fuzzy`` (Table 16) — GS (``metrics.grounding.grounding_score``) at fuzzy thresholds 0.70 /
  0.80 / 0.90 and exact (threshold 1.0: the lower-cased quote occurs in the review), on
  ``n_dialogues`` dialogues of each run drawn with ``seed`` (:mod:`.rescore`);
* ``spatial`` (Table 18) — spatial coherence at 1–5 km, runs re-scored with ``spatial_km``;
* ``entailment`` (Table 17), ``cgs`` (Table 22) — from the runs' score files (Gap = GS − Entail);
* ``antigaming`` (Table 19) — per-baseline Pearson r of CD vs GS over turns;
* ``variants`` — the CGS formula variants with Spearman ρ of the baseline ranking vs default;
* ``independence`` — Spearman ρ between GS, CD and PC over the pooled turns of the non-LLM
  baselines;
* ``nli`` / ``bimodality`` — entailment at NLI thresholds 0.3–0.7 and the per-claim probability
  shares / Sarle's coefficient, on a seeded sample with the ``entailment`` backend.

Published parts write ``tables/<paper name>.csv`` (long reported-vs-reproduced format);
the others write ``tables/<part name>.csv`` (tidy, as returned by ``stats``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics.entailment import make_backend
from trace_crs.metrics.grounding import grounding_score
from trace_crs.report import compare, figures, paper, rescore, results
from trace_crs.stats.cgs_variants import cgs_variant_sensitivity
from trace_crs.stats.checks import anti_gaming, metric_independence
from trace_crs.stats.sweeps import (bimodality, fuzzy_threshold_sensitivity, nli_threshold_sensitivity,
                                    spatial_threshold_sensitivity)

NAMES = {"fuzzy": "table16_fuzzy_threshold", "entailment": "table17_entailment_vs_fuzzy",
         "spatial": "table18_spatial_threshold", "antigaming": "table19_antigaming",
         "cgs": "table22_cgs_variants", "variants": "cgs_formula_variants",
         "independence": "grounding_independence", "nli": "nli_threshold", "bimodality": "nli_bimodality"}
PARTS = tuple(NAMES)
EXACT = 1.0  # fuzzy threshold of the "exact" column: partial_ratio 100 = verbatim (lower-cased)
FUZZY_COLUMNS = {"70%": 0.70, "80%": 0.80, "90%": 0.90, "Exact": "exact"}
SPATIAL_COLUMNS = {"1km": 1.0, "1.5km": 1.5, "2km": 2.0, "3km": 3.0, "5km": 5.0}
AGG_COLUMNS = {
    "entailment": {"n_turns": "n_turns", "FuzzyGS": "gs", "EntailmentGS": "entailment", "Gap": "gap"},
    "cgs": {"GS": "gs", "Entail": "entailment", "CD": "cd", "PC": "pc", "CGS": "cgs", "CGSent": "cgs_ent"},
}
COUNT_COLUMNS = ("n_turns", "p_value")  # not compared in mean_abs_diff
AG_COLUMNS = {"n_turns": "n_turns", "MeanCD": "mean_cd", "MeanGS": "mean_gs", "Pearson_r": "pearson_r",
              "p_value": "p_value"}


def load(results_dir: str | Path, part: str = "fuzzy", runs: Sequence[str] = ("closed", "closed_llm"),
         n_dialogues: int | None = 300, seed: int = 42, nli_run: str = "closed",
         nli_baselines: Sequence[str] | None = ("popularity", "tfidf"), nli_dialogues: int | None = 50,
         entailment: str = "embedding") -> pd.DataFrame:
    """The ``part`` of Appendix L (see module docstring); writes its table CSV."""
    loaders: dict[str, Callable[[], pd.DataFrame]] = {
        "fuzzy": lambda: _fuzzy(results_dir, runs, n_dialogues, seed),
        "spatial": lambda: _spatial(results_dir, runs, n_dialogues, seed),
        "entailment": lambda: _aggregates(results_dir, runs, "entailment"),
        "cgs": lambda: _aggregates(results_dir, runs, "cgs"),
        "antigaming": lambda: _antigaming(results_dir, runs),
        "variants": lambda: cgs_variant_sensitivity(results.load_per_turn(results_dir, runs)),
        "independence": lambda: _independence(results_dir, runs),
        "nli": lambda: _nli(results_dir, nli_run, nli_baselines, nli_dialogues, seed, entailment, False),
        "bimodality": lambda: _nli(results_dir, nli_run, nli_baselines, nli_dialogues, seed, entailment, True),
    }
    if part not in loaders:
        raise ValueError(f"part must be one of {list(PARTS)}, got {part!r}")
    frame = loaders[part]()
    results.write_table(frame, results_dir, NAMES[part])
    frame.attrs["part"] = part
    return frame


def _inputs(results_dir: str | Path, runs: Sequence[str], n_dialogues: int | None, seed: int,
            baselines: Sequence[str] | None = None) -> list[rescore.RunInputs]:
    return [rescore.run_inputs(results_dir, run, baselines, n_dialogues, seed) for run in runs]


def _published_sweep(name: str, sweep: pd.DataFrame, columns: Mapping[str, Any],
                     inputs: Sequence[rescore.RunInputs]) -> pd.DataFrame:
    """Sweep (``stats.sweeps``) beside the printed table; adds ``rank_rho_vs_default``."""
    label = {s: col for col, s in columns.items()}
    wide = sweep.assign(column=sweep["setting"].map(label)).pivot(index="baseline", columns="column", values="value")
    runs = {b: i.run for i in inputs for b in i.baselines}
    ours = wide.assign(run=[runs[b] for b in wide.index],
                       n_dialogues=[len(next(i for i in inputs if i.run == runs[b]).dialogues) for b in wide.index])
    long = compare.side_by_side(paper.table(name), ours, {c: c for c in columns})
    rho = sweep.drop_duplicates("setting").set_index("setting")["rank_rho_vs_default"]
    long["rank_rho_vs_default"] = long["column"].map({label[s]: float(r) for s, r in rho.items()})
    return long


def _fuzzy(results_dir: str | Path, runs: Sequence[str], n_dialogues: int | None, seed: int) -> pd.DataFrame:
    inputs = _inputs(results_dir, runs, n_dialogues, seed)
    turns = pd.concat([i.turns() for i in inputs], ignore_index=True)

    def gs_at(setting: Any) -> pd.DataFrame:
        tau = EXACT if setting == "exact" else float(setting)
        return turns[["baseline"]].assign(gs=grounding_score(list(turns["text"]), list(turns["cited"]), tau))

    sweep = fuzzy_threshold_sensitivity(gs_at, tuple(FUZZY_COLUMNS.values()))
    return _published_sweep(NAMES["fuzzy"], sweep, FUZZY_COLUMNS, inputs)


def _spatial(results_dir: str | Path, runs: Sequence[str], n_dialogues: int | None, seed: int) -> pd.DataFrame:
    inputs = _inputs(results_dir, runs, n_dialogues, seed)
    source = lambda km: pd.concat([i.score(spatial_km=float(km))[1] for i in inputs], ignore_index=True)  # noqa: E731
    sweep = spatial_threshold_sensitivity(source, tuple(SPATIAL_COLUMNS.values()))
    return _published_sweep(NAMES["spatial"], sweep, SPATIAL_COLUMNS, inputs)


def _aggregates(results_dir: str | Path, runs: Sequence[str], part: str) -> pd.DataFrame:
    ours = results.metric_table(results.load_aggregates(results_dir, runs))
    gs, ent = (ours.get(c, pd.Series(np.nan, index=ours.index)).astype(float) for c in ("gs", "entailment"))
    ours = ours.assign(gap=gs - ent)
    return compare.side_by_side(paper.table(NAMES[part]), ours, AGG_COLUMNS[part])


def _antigaming(results_dir: str | Path, runs: Sequence[str]) -> pd.DataFrame:
    turns = results.load_per_turn(results_dir, runs)
    ours = anti_gaming(turns).set_index("baseline")
    ours["run"] = turns.drop_duplicates("baseline").set_index("baseline")["run"]
    return compare.side_by_side(paper.table(NAMES["antigaming"]), ours, AG_COLUMNS)


def _independence(results_dir: str | Path, runs: Sequence[str]) -> pd.DataFrame:
    turns = results.load_per_turn(results_dir, runs)
    non_llm = sorted(b for b in turns["baseline"].unique() if compare.family(b) == "non_llm")
    out = metric_independence(turns, baselines=non_llm)
    return out.assign(baselines=", ".join(non_llm))


def _nli(results_dir: str | Path, run: str, baselines: Sequence[str] | None, n_dialogues: int | None,
         seed: int, spec: str, claims: bool) -> pd.DataFrame:
    inputs = rescore.run_inputs(results_dir, run, baselines, n_dialogues, seed)
    backend = make_backend(spec)
    if backend is None:
        raise ValueError("the NLI sensitivity needs an entailment backend (embedding, hf:DIR or llm), not 'none'")
    if claims:
        out = bimodality(inputs.claim_probabilities(backend))
    else:
        out = nli_threshold_sensitivity(lambda t: inputs.score(entailment=backend, entail_threshold=float(t))[0])
    return out.assign(run=run, backend=backend.name, n_dialogues=len(inputs.dialogues))


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """One figure per part, saved as ``figures/<table name>`` (PNG + SVG)."""
    part = df.attrs.get("part", "")
    plotters: dict[str, Callable[[pd.DataFrame], Figure]] = {
        "fuzzy": _sweep_plot, "spatial": _sweep_plot, "nli": _nli_plot,
        "variants": lambda d: _bars(d.drop_duplicates("variant"), "variant", "spearman_vs_default",
                                    "Spearman ρ vs default CGS ranking"),
        "independence": lambda d: _bars(d.assign(pair=d["metric_a"] + "–" + d["metric_b"]), "pair",
                                        "spearman_rho", "Spearman ρ over pooled turns"),
        "bimodality": _bimodality_plot,
    }
    fig = plotters.get(part, lambda d: compare.plot(d, f"{NAMES.get(part, part)}: this run vs paper"))(df)
    figures.save(fig, NAMES.get(part, "t16"), figures_dir)
    return fig


def _sweep_plot(df: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    cols = list(dict.fromkeys(df["column"]))
    for i, (key, part) in enumerate(df.groupby("Baseline", sort=False)):
        part = part.set_index("column").reindex(cols)
        line = ax.plot(cols, part["ours"], marker="o", label=key)[0]
        ax.plot(cols, part["paper"], ls="--", color=line.get_color(), alpha=0.6)
    ax.set(xlabel="setting", ylabel="value (solid: this run, dashed: paper)")
    ax.legend(fontsize=7, ncol=2)
    return fig


def _nli_plot(df: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for key, part in df.groupby("baseline"):
        ax.plot(part["setting"], part["value"], marker="o", label=compare.label(key))
    ax.set(xlabel="NLI threshold", ylabel="entailment grounding", title=str(df["backend"].iloc[0]))
    ax.legend(fontsize=8)
    return fig


def _bars(df: pd.DataFrame, x: str, y: str, ylabel: str) -> Figure:
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    ax.bar(df[x].astype(str), df[y])
    ax.set(ylabel=ylabel, ylim=(min(0.0, float(df[y].min(skipna=True) or 0)) - 0.05, 1.05))
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    return fig


def _bimodality_plot(df: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    bottom = np.zeros(len(df))
    for col in ("share_low", "share_borderline", "share_high"):
        ax.bar(df["baseline"].map(compare.label), df[col], bottom=bottom, label=col.removeprefix("share_"))
        bottom += df[col].to_numpy(float)
    ax.set(ylabel="share of claims", title="claim probability: < 0.3 / 0.3–0.7 / ≥ 0.7")
    ax.legend(fontsize=8)
    return fig


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose for this part (keys depend on the part)."""
    part = df.attrs.get("part", "")
    if part in ("fuzzy", "spatial"):
        ours = df.dropna(subset=["ours"])
        cols = list(dict.fromkeys(df["column"]))
        spread = ours.groupby("baseline")["ours"].agg(lambda v: v.max() - v.min())
        return {"n_baselines": int(ours["baseline"].nunique()), "max_spread": float(spread.max()),
                "min_rank_rho": float(df["rank_rho_vs_default"].min()),
                "mean_first": float(ours[ours["column"] == cols[0]]["ours"].mean()),
                "mean_last": float(ours[ours["column"] == cols[-1]]["ours"].mean())}
    if part == "variants":
        alt = df[df["variant"] != "default"].drop_duplicates("variant")
        return {"n_variants": int(len(alt)), "min_rho": float(alt["spearman_vs_default"].min()),
                "max_rho": float(alt["spearman_vs_default"].max()),
                "paper_range": paper.claim("App. L", "Spearman rank correlation of alternative CGS formulas "
                                                     "with current CGS")}
    if part == "independence":
        return {"n_turns": int(df["n_turns"].iloc[0]), "max_abs_rho": float(df["spearman_rho"].abs().max()),
                **{f"rho_{a}_{b}": float(r) for a, b, r in zip(df["metric_a"], df["metric_b"], df["spearman_rho"])}}
    if part == "nli":
        spread = df.groupby("baseline")["value"].agg(lambda v: v.max() - v.min())
        return {"max_change": float(spread.max()), "n_dialogues": int(df["n_dialogues"].iloc[0]),
                "backend": str(df["backend"].iloc[0]),
                "paper_change": paper.claim("App. L NLI threshold",
                                            "entailment grounding change across thresholds (absolute, within)")}
    if part == "bimodality":
        return {"n_claims": int(df["n_claims"].sum()), "max_borderline": float(df["share_borderline"].max()),
                "mean_sarle_b": float(df["sarle_b"].mean())}
    r = df.dropna(subset=["ours"])
    d = r[~r["column"].isin(COUNT_COLUMNS)]["diff"].abs()
    return {"n_baselines": int(r["baseline"].nunique()), "n_columns": int(r["column"].nunique()),
            "mean_abs_diff": float(d.mean()) if d.notna().any() else float("nan")}
