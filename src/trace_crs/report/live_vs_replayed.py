"""Replayed vs live (CoRE's live-evaluation question, seed 001, on the live loop of :mod:`trace_crs.live`): does a baseline that scores well answering replayed
reference conversations also succeed when it converses with the simulated user?

Per baseline, its replayed scores (the first of ``replay_runs`` that scored it) beside its live
aggregate (``live/<live_run>/live_scores.json``, :mod:`trace_crs.live.scores`) for TSR, T2R and
rejection recovery.  Replayed scores are taken over the live run's dialogues when the run's
per-dialogue frame exists (``replay_scope = "live dialogues"``; recovery pooled over episodes),
else the run's aggregate (``"whole run"``).  Kendall's τ-b (:func:`scipy.stats.kendalltau`) between the two
rankings of the baselines on each metric.  The two TSRs measure different things: replayed
success is hitting the reference's gold POI at a turn of someone else's conversation; live
success is the user accepting a POI that meets all its hidden preferences within the turn cap.
The notebook writes ``tables/live_vs_replayed.csv`` when a live run exists.  Missing outputs give an empty table (or the rows of the
live runs that exist) and a message (:func:`facts` ``status``), not an error, so the book still
builds: the LLM live run (``make live-llm``) is optional.
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
from scipy.stats import kendalltau

from trace_crs import results_layout as layout
from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, results

NAME = "live_vs_replayed"
METRICS: dict[str, str] = {k: metric_registry.label(k) for k in ("tsr", "t2r", "rejection_recovery")}
LIVE_EXTRA: tuple[str, ...] = ("turns_to_success", "abstention_rate", "cgs")
MIN_BASELINES = 3


def _live(results_dir: str | Path, live_run: str) -> dict[str, Any]:
    path = results.require(
        Path(results_dir) / "live" / live_run / "live_scores.json",
        f"live scores of '{live_run}' (`make live`, `make live-llm` or `trace-crs converse`)",
    )
    return json.loads(path.read_text())


def _replayed(results_dir: str | Path, run: str, name: str, ids: set[str]) -> tuple[str, dict[str, float]]:
    """Replayed TSR, T2R and pooled recovery of ``name`` in ``run`` over the dialogues ``ids``
    (the run's aggregate when its per-dialogue frame is missing or shares none of them)."""
    path = layout.score_file(results_dir, run, name, "per_dialogue")
    frame = pd.read_parquet(path) if path.is_file() and ids else pd.DataFrame(columns=["dialogue_id"])
    frame = frame[frame["dialogue_id"].isin(ids)]
    if frame.empty:
        return "whole run", results.read_aggregate(results_dir, run, name)["metrics"]
    episodes = frame["recovery_episodes"].sum()
    return "live dialogues", {
        "tsr": frame["tsr"].mean(),
        "t2r": frame["t2r"].mean(),
        "rejection_recovery": frame["recovery_hits"].sum() / episodes if episodes else np.nan,
    }


def load(
    results_dir: str | Path,
    live_runs: Sequence[str] = ("live", "live_llm"),
    replay_runs: Sequence[str] = ("closed", "closed_llm"),
) -> pd.DataFrame:
    """One row per live baseline (the first of ``live_runs`` that ran it): replayed and live
    metrics.  Live runs not found are named in ``df.attrs["status"]``."""
    columns = (
        ["baseline", "label", "family", "live_run", "replay_run", "replay_scope"]
        + [f"{side}_{m}" for m in METRICS for side in ("replayed", "live")]
        + [f"live_{m}" for m in LIVE_EXTRA]
        + ["n_live_dialogues", "max_turns"]
    )
    rows: list[dict[str, Any]]
    missing: list[str]
    rows, missing = [], []
    for live_run in live_runs:
        try:
            live = _live(results_dir, live_run)
        except results.ResultsMissing as exc:
            missing.append(str(exc))
            continue
        table = Path(results_dir) / "live" / live_run / "live_scores.parquet"
        ids = set(pd.read_parquet(table, columns=["dialogue_id"])["dialogue_id"]) if table.is_file() else set()
        for name, agg in sorted(live["baselines"].items()):
            if name in {r["baseline"] for r in rows}:
                continue
            run = next((r for r in replay_runs if layout.score_file(results_dir, r, name).is_file()), None)
            scope, replayed = _replayed(results_dir, run, name, ids) if run else ("", {})
            row = {
                "baseline": name,
                "label": compare.label(name),
                "family": compare.family(name),
                "live_run": live_run,
                "replay_run": run or "",
                "replay_scope": scope,
                "n_live_dialogues": agg["n_dialogues"],
                "max_turns": live["config"]["max_turns"],
            }
            for m in METRICS:
                row[f"replayed_{m}"] = replayed.get(m, np.nan)
                row[f"live_{m}"] = agg["metrics"].get(m)
            row.update({f"live_{m}": agg["metrics"].get(m) for m in LIVE_EXTRA})
            rows.append(row)
    df = pd.DataFrame(rows, columns=columns)
    df[columns[6:]] = df[columns[6:]].astype(float)
    notes = [f"No live run to compare: {m}" if not rows else f"Not included: {m}" for m in missing]
    if rows and not df["replay_run"].ne("").any():
        notes.append(f"No replayed score files in {', '.join(replay_runs)} for the live baselines.")
    df.attrs["status"] = " ".join(notes)
    return df


def rank_agreement(df: pd.DataFrame) -> pd.DataFrame:
    """Kendall's τ-b and its p-value between the replayed and live rankings, per metric
    (NaN with fewer than ``MIN_BASELINES`` baselines scored both ways)."""
    rows = []
    for m, label in METRICS.items():
        both = df[[f"replayed_{m}", f"live_{m}"]].dropna()
        tau, p = kendalltau(both.iloc[:, 0], both.iloc[:, 1]) if len(both) >= MIN_BASELINES else (np.nan, np.nan)
        rows.append({"metric": label, "n_baselines": len(both), "kendall_tau": float(tau), "p_value": float(p)})
    return pd.DataFrame(rows)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """τ per metric, sizes, and the status message (empty when the comparison ran)."""
    agree = rank_agreement(df).set_index("metric")
    out: dict[str, Any] = {
        "status": df.attrs.get("status") or "Replayed and live scores of the same baselines.",
        "n_baselines": int(len(df)),
        "n_live_dialogues": int(df["n_live_dialogues"].max()) if len(df) else 0,
        "max_turns": int(df["max_turns"].max()) if len(df) else 0,
    }
    for m, label in METRICS.items():
        out[f"tau_{m}"], out[f"p_{m}"] = agree.loc[label, "kendall_tau"], agree.loc[label, "p_value"]
    return out


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Replayed vs live, one panel per metric, one labelled point per baseline."""
    # At most two panels a row so that each is ≥ 3.5 in wide at the column width; y = x drawn,
    # since agreement of the live with the replayed score is the point.
    ncols = min(2, len(METRICS))
    nrows = -(-len(METRICS) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.5, 3.6 * nrows), squeeze=False)
    for ax in axes.flat[len(METRICS) :]:
        ax.set_visible(False)
    for ax, (m, label) in zip(axes.flat, METRICS.items(), strict=False):
        ax.scatter(df[f"replayed_{m}"], df[f"live_{m}"])
        both = df[[f"replayed_{m}", f"live_{m}"]].astype(float)
        lo, hi = (
            (float(np.nanmin(both.to_numpy())), float(np.nanmax(both.to_numpy())))
            if both.notna().any().any()
            else (0.0, 1.0)
        )
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="grey", lw=0.8, ls="--", label="y = x")
        ax.set(xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad))
        ax.set_xlabel(f"replayed {label}")
        ax.set_ylabel(f"live {label}")
        if df.empty:
            ax.text(0.5, 0.5, "no live run", ha="center", va="center", transform=ax.transAxes)
        else:
            figures.label_points(ax, df[f"replayed_{m}"], df[f"live_{m}"], df["label"])
    figures.save(fig, NAME, figures_dir)
    return fig
