"""The Deviations page's diagnosis: per systematic pattern, each hypothesis's variant, the metric's
values and Kendall τ against the paper, and a verdict computed by :func:`verdict`.

Reads ``results/<profile>/diagnosis/variants.parquet`` (``trace-crs stats diagnose``, one row per
variant × baseline × dialogue) and the hypotheses of ``diagnosis_hypotheses.yaml``.  All numbers
are over the non-LLM baselines of Table 5 (the LLM rows run on too few dialogues to diagnose).

Statistics (every one with a 95 % percentile interval from one cluster bootstrap over dialogues,
the same resampled dialogues for every variant and baseline, ``stats.bootstrap``):

* value of a metric per baseline: pooled turn mean (turn metrics) or mean over dialogues;
* gap = median over the pattern's baselines of |ours − paper|;
  gap closure = 1 − gap(variant) / gap(headline)  (1: the variant lands on the paper; 0: no change);
* τ = Kendall τ_b (``scipy.stats.kendalltau``) of our values against the paper's over the
  pattern's baselines; τ closure = (τ(variant) − τ(headline)) / (1 − τ(headline)).

:func:`verdict` turns the closure interval [lo, hi] of the pattern's statistic (gap closure for
``level`` patterns, τ closure for ``ordering`` ones) into: **explains** if lo ≥ 0.75; **partly** if
lo > 0; **does not** if hi < 0.25; otherwise **not resolved**.  The headline itself is the reference.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from trace_crs import DEFAULT_SEED
from trace_crs.report import compare
from trace_crs.report.diagnosis_bootstrap import Diagnosis, interval, paper_values
from trace_crs.report.t05_headline import COLUMNS
from trace_crs.stats.bootstrap import N_BOOT
from trace_crs.stats.diagnosis import HEADLINE

NAME = "diagnosis"  # table CSV of the summary (written by the deviations notebook)
VALUES = "diagnosis_values"  # table CSV of every variant × column × baseline value with its interval
NAMES = {"summary": NAME, "values": VALUES}  # every table CSV the deviations page writes from here
FILE = Path("diagnosis") / "variants.parquet"
HYPOTHESES_FILE = Path(__file__).with_name("diagnosis_hypotheses.yaml")
VERDICTS: tuple[str, ...] = ("explains", "partly", "does not", "not resolved")
EXPLAINS, PARTLY, DOES_NOT = 0.75, 0.0, 0.25  # thresholds of :func:`verdict` (closure scale)


@cache
def hypotheses() -> tuple[dict[str, Any], ...]:
    """The patterns of ``diagnosis_hypotheses.yaml``, in file order."""
    return tuple(yaml.safe_load(HYPOTHESES_FILE.read_text()))


def verdict(low: float, high: float) -> str:
    """One of :data:`VERDICTS` for a closure interval (see the module docstring)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "not resolved"
    if low >= EXPLAINS:
        return "explains"
    if low > PARTLY:
        return "partly"
    return "does not" if high < DOES_NOT else "not resolved"


def load_frame(results_dir: str | Path) -> pd.DataFrame:
    """The diagnose output of ``results_dir`` (FileNotFoundError naming it when absent)."""
    path = Path(results_dir) / FILE
    if not path.exists():
        raise FileNotFoundError(f"{path}: run `make diagnosis` (trace-crs stats diagnose) first")
    return pd.read_parquet(path)


def load(results_dir: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One row per (pattern, hypothesis variant, column) plus the headline reference row: values
    summary, gap and τ with intervals and closures, and the verdict on the pattern's statistic."""
    frame = load_frame(results_dir)
    diag = Diagnosis(frame, n_boot, seed)
    rows = []
    for pat in hypotheses():
        baselines = [b for b in (pat.get("baselines") or diag.baselines) if b in diag.baselines]
        stat = "gap_closure" if pat["kind"] == "level" else "tau_closure"
        for column in pat["columns"]:
            metric = COLUMNS[column]
            for hyp in [
                {"variant": HEADLINE, "cause": "the README's definitions (reference)", "quote": ""},
                *pat["hypotheses"],
            ]:
                if hyp["variant"] not in set(frame["variant"]):
                    continue
                s = diag.statistic(hyp["variant"], metric, baselines)
                everyone = diag.means(hyp["variant"], metric)[0]
                point = everyone[[diag.baselines.index(b) for b in baselines]]
                # for a one-baseline pattern: its rank among the non-LLM rows (1 = highest value)
                rank = (int((everyone > point[0]).sum()) + 1) if len(baselines) == 1 else None
                rows.append(
                    {
                        "pattern": pat["title"],
                        "kind": pat["kind"],
                        "column": column,
                        "variant": hyp["variant"],
                        "hypothesis": hyp["cause"],
                        "paper_text": hyp["quote"],
                        "ours_min": float(np.nanmin(point)),
                        "ours_max": float(np.nanmax(point)),
                        "paper_min": float(diag.printed.loc[baselines, metric].min()),
                        "paper_max": float(diag.printed.loc[baselines, metric].max()),
                        **s,
                        "verdict": "reference"
                        if hyp["variant"] == HEADLINE
                        else verdict(s[f"{stat}_low"], s[f"{stat}_high"]),
                        "rank_among_non_llm": rank,
                        "n_dialogues": len(diag.dialogues),
                        "n_baselines": len(baselines),
                        "n_boot": n_boot,
                    }
                )
    return pd.DataFrame(rows)


def values(results_dir: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Every variant × Table 5 column × non-LLM baseline: ours with its interval, and the paper's."""
    frame = load_frame(results_dir)
    diag = Diagnosis(frame, n_boot, seed)
    rows = []
    for variant in sorted(set(frame["variant"]), key=lambda v: (v != HEADLINE, v)):
        for column, metric in COLUMNS.items():
            point, reps = diag.means(variant, metric)
            for i, b in enumerate(diag.baselines):
                lo, hi = interval(reps[:, i])
                rows.append(
                    {
                        "variant": variant,
                        "Baseline": compare.label(b),
                        "baseline": b,
                        "column": column,
                        "paper": float(diag.printed.loc[b, metric]),
                        "ours": float(point[i]),
                        "ci_low": lo,
                        "ci_high": hi,
                        "n_dialogues": len(diag.dialogues),
                    }
                )
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """The page's table: one row per pattern × column × variant, labelled columns."""
    out = df[
        [
            "pattern",
            "column",
            "variant",
            "hypothesis",
            "ours_min",
            "ours_max",
            "paper_min",
            "paper_max",
            "gap",
            "gap_closure",
            "gap_closure_low",
            "gap_closure_high",
            "tau",
            "tau_low",
            "tau_high",
            "tau_closure",
            "rank_among_non_llm",
            "verdict",
            "n_dialogues",
            "n_baselines",
        ]
    ]
    return out.rename(
        columns={
            "pattern": "Pattern",
            "column": "Metric",
            "variant": "Variant",
            "hypothesis": "Hypothesis",
            "ours_min": "Ours (min)",
            "ours_max": "Ours (max)",
            "paper_min": "Paper (min)",
            "paper_max": "Paper (max)",
            "gap": "Median |ours − paper|",
            "gap_closure": "Gap closure",
            "gap_closure_low": "Gap closure low",
            "gap_closure_high": "Gap closure high",
            "tau": "Kendall τ",
            "tau_low": "τ low",
            "tau_high": "τ high",
            "tau_closure": "τ closure",
            "rank_among_non_llm": "Rank among non-LLM",
            "verdict": "Verdict",
            "n_dialogues": "n dialogues",
            "n_baselines": "n baselines",
        }
    )


def hypotheses_table() -> pd.DataFrame:
    """Every hypothesis with the paper's sentence it rests on."""
    return pd.DataFrame(
        [
            {
                "Pattern": p["title"],
                "Variant": h["variant"],
                "Hypothesis": h["cause"],
                "Paper's text": " ".join(str(h["quote"]).split()),
            }
            for p in hypotheses()
            for h in p["hypotheses"]
        ]
    )


def causes(df: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``{(column, baseline): cause}`` for the Deviations page's cells: the variants whose verdict
    on a pattern covering the column is *explains* or *partly* (with the closure), else
    ``unexplained (tested: …)``, each prefixed by the pattern's title and joined by `` | `` when a
    cell belongs to several patterns.  Baselines: the pattern's (all non-LLM when unspecified)."""
    out: dict[tuple[str, str], str] = {}
    printed = paper_values()
    for pat in hypotheses():
        part = df[(df["pattern"] == pat["title"]) & (df["verdict"] != "reference")]
        stat = "gap_closure" if pat["kind"] == "level" else "tau_closure"
        for column in pat["columns"]:
            rows = part[part["column"] == column]
            found = [
                f"{r.variant} {r.verdict} ({stat.replace('_', ' ')} {getattr(r, stat):.2f} "
                f"[{getattr(r, stat + '_low'):.2f}, {getattr(r, stat + '_high'):.2f}], n = {r.n_dialogues})"
                for r in rows.itertuples()
                if r.verdict in ("explains", "partly")
            ]
            text = "; ".join(found) if found else "unexplained (tested: " + ", ".join(rows["variant"]) + ")"
            text = f"{pat['title']}: {text}"
            for b in pat.get("baselines") or list(printed.index):
                key = (column, b)
                out[key] = f"{out[key]} | {text}" if key in out else text
    return out


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the page's prose (glued): the rule's thresholds, sizes and verdict counts."""
    tested = df[df["verdict"] != "reference"]
    counts = tested["verdict"].value_counts()
    return {
        "explains_at": EXPLAINS,
        "partly_above": PARTLY,
        "does_not_below": DOES_NOT,
        "n_patterns": int(df["pattern"].nunique()),
        "n_tests": int(len(tested)),
        "n_variants": int(tested["variant"].nunique()),
        "n_dialogues": int(df["n_dialogues"].max()) if len(df) else 0,
        "n_boot": int(df["n_boot"].max()) if len(df) else 0,
        **{v.replace(" ", "_"): int(counts.get(v, 0)) for v in VERDICTS},
    }


def rec_turns_per_dialogue(results_dir: str | Path) -> float:
    """Mean number of scored (recommend/compare) turns per diagnosed dialogue: with T2R counting
    those turns, a never-hit dialogue costs this + 1, which bounds the corpus's T2R."""
    frame = load_frame(results_dir)
    first = frame[(frame["variant"] == HEADLINE) & (frame["baseline"] == frame["baseline"].min())]
    return float(first["n_turns"].mean())


def values_wide(v: pd.DataFrame) -> pd.DataFrame:
    """:func:`values` as one row per variant × baseline, one column per Table 5 column (ours),
    the printed values as the ``paper`` rows."""
    ours = v.pivot_table(index=["variant", "Baseline"], columns="column", values="ours", sort=False)
    printed = v[v["variant"] == v["variant"].iloc[0]].pivot_table(
        index="Baseline", columns="column", values="paper", sort=False
    )
    printed.index = pd.MultiIndex.from_product([["paper (printed)"], printed.index], names=["variant", "Baseline"])
    out = pd.concat([printed, ours])[list(COLUMNS)].reset_index()
    return out.rename(columns={"variant": "Variant"}).assign(n_dialogues=int(v["n_dialogues"].max()))
