"""The book page "Does the judge agree with people?" (``notebooks/judge_validity.py``).

Reads only what ``trace-crs judge validity`` wrote to ``<results>/judge_validity/``
(``validity.json``, ``scores.parquet``): every judged candidate, the two floors and FACE per
human aspect and half, the configuration chosen on the selection half.  :func:`verdict` is the
sentence every CoRE ranking in the book quotes (:func:`judge_note`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures
from trace_crs.report.present import interval

NAME = "judge_validity"
DIR = "judge_validity"
TARGET_RHO = 0.50  # issue 44's bar for the chosen judge on all conversations
PAGE = "judge_validity"  # the page's stem, for links from the CoRE pages
LENGTH = "length floor"
HALVES = ("selection", "reporting", "all")


def load(results_dir: str | Path) -> tuple[dict[str, Any] | None, pd.DataFrame | None]:
    """``(validity.json, scores.parquet)``, ``(None, None)`` when not run on this profile."""
    d = Path(results_dir) / DIR
    if not (d / "validity.json").exists():
        return None, None
    v = json.loads((d / "validity.json").read_text(encoding="utf-8"))
    scores = pd.read_parquet(d / "scores.parquet") if (d / "scores.parquet").exists() else None
    return v, scores


def _rows(v: dict[str, Any]) -> pd.DataFrame:
    t = pd.DataFrame(v["table"])
    return t.replace({None: np.nan})


def kind(name: str, v: dict[str, Any]) -> str:
    if name in v["candidates"]:
        return "chosen judge" if name == v["chosen"] else "candidate judge"
    return "reference evaluator" if name.startswith("FACE") else "floor"


NOT_RUN = pd.DataFrame(
    [{"score": "not run on this profile (make judge-validity needs ../shared/data/crsarena-eval-dev)"}]
)


def main_table(v: dict[str, Any] | None) -> pd.DataFrame:
    """One row per score: ρ [95 % interval] with the target aspect on each half, τ_b on all."""
    if v is None:
        return NOT_RUN
    t = _rows(v)
    t = t[t["aspect"] == v["aspect"]]
    rows = []
    for name, d in t.groupby("score", sort=False):
        by = d.set_index("half")
        row: dict[str, Any] = {"score": name, "kind": kind(str(name), v)}
        row["n (selection / reporting / all)"] = " / ".join(str(int(by.loc[h, "n"])) for h in HALVES)
        for half in HALVES:
            r = by.loc[half]
            row[f"ρ {half}"] = interval(r["rho"], r["rho_lo"], r["rho_hi"])
        r = by.loc["all"]
        row["τ_b all"] = interval(r["tau"], r["tau_lo"], r["tau_hi"])
        rows.append(row)
    return pd.DataFrame(rows)


def length_table(v: dict[str, Any] | None) -> pd.DataFrame:
    """One row per score: its ρ with the length floor and its partial ρ [95 % interval] with the
    human overall impression given length, on the reporting half and on all."""
    if v is None or not v.get("beyond_length"):
        return NOT_RUN
    t = pd.DataFrame(v["beyond_length"]).replace({None: np.nan})
    rows = []
    for name, d in t.groupby("score", sort=False):
        by = d.set_index("half")
        row: dict[str, Any] = {
            "score": name,
            "kind": kind(str(name), v),
            "ρ with length (all)": by.loc["all", "rho_length"],
        }
        for half in ("reporting", "all"):
            r = by.loc[half]
            row[f"partial ρ given length, {half}"] = interval(r["partial"], r["partial_lo"], r["partial_hi"])
        rows.append(row)
    return pd.DataFrame(rows)


def aspect_grid(v: dict[str, Any], half: str = "all") -> pd.DataFrame:
    """Scores × human aspects: ρ on ``half``."""
    t = _rows(v)
    t = t[t["half"] == half]
    return t.pivot(index="score", columns="aspect", values="rho").reindex(
        index=list(dict.fromkeys(t["score"])), columns=list(dict.fromkeys(t["aspect"]))
    )


def failures(v: dict[str, Any] | None) -> pd.DataFrame:
    """Per judged candidate: the judge, its mode and rating, failure shares, mass on the rating
    digits, distinct scores and model cost per transcript."""
    if v is None:
        return NOT_RUN
    rows = []
    for name, j in v["judged"].items():
        if j is None:
            rows.append({"candidate": name, "judge": "not judged yet"})
            continue
        per = j["per_transcript"]
        rows.append(
            {
                "candidate": name,
                "judge": str(j["judge"]).removeprefix("openai/").split("-sha256-")[0],
                "rating": j.get("rating") or j.get("mode"),
                "transcripts": j["n"],
                "failed factor ratings (share)": j["failed_factor_share"],
                "unscored transcripts": j["unscored_transcripts"],
                "mean mass on the digits 0-4": j["mean_digit_mass"],
                "distinct scores": j["distinct_scores"],
                "model s / transcript": per["model_s"],
                "calls / transcript": per["calls"],
            }
        )
    return pd.DataFrame(rows)


def _rho(v: dict[str, Any], score: str, half: str) -> dict[str, float]:
    t = _rows(v)
    hit = t[(t["score"] == score) & (t["half"] == half) & (t["aspect"] == v["aspect"])]
    return hit.iloc[0].to_dict() if len(hit) else {"rho": np.nan, "rho_lo": np.nan, "rho_hi": np.nan, "n": 0}


def _beyond(v: dict[str, Any], score: str, half: str) -> dict[str, Any] | None:
    hit = [r for r in v.get("beyond_length") or [] if r["score"] == score and r["half"] == half]
    return {k: np.nan if x is None else x for k, x in hit[0].items()} if hit else None


def published(v: dict[str, Any] | None) -> pd.DataFrame:
    """The published correlations on the same half, as reported (no interval given)."""
    if v is None:
        return NOT_RUN
    rows = [{"evaluator": k, "published ρ": r} for k, r in v["published"]["rho"].items()]
    return pd.DataFrame(rows).sort_values("published ρ", ascending=False, kind="stable")


def facts(v: dict[str, Any] | None) -> dict[str, Any]:
    """The numbers and the verdict the page's prose and the CoRE pages cite."""
    if v is None:
        return {
            "verdict": "not run on this profile (`make judge-validity`)",
            **dict.fromkeys(("chosen", "chosen_by_evidence", "passes"), "—"),
            **dict.fromkeys(("n", "n_systems", "n_boot", "seed", "n_selection", "n_reporting"), 0),
        }
    chosen = v["chosen"]
    all_, rep = _rho(v, chosen, "all"), _rho(v, chosen, "reporting")
    floor = _rho(v, LENGTH, "all")
    judged = v["judged"].get(chosen) is not None
    ok = judged and np.isfinite(all_["rho"]) and all_["rho"] >= TARGET_RHO and all_["rho"] > floor["rho"]
    if not judged:
        text = f"the chosen judge ({chosen}) has not been run against human ratings on this profile"
    else:
        text = (
            f"Spearman ρ with the human overall impression {interval(all_['rho'], all_['rho_lo'], all_['rho_hi'])} "
            f"on all {int(all_['n'])} human-rated conversations "
            f"({interval(rep['rho'], rep['rho_lo'], rep['rho_hi'])} on the {int(rep['n'])} not used to choose it); "
            f"the length of the system's turns alone reaches {interval(floor['rho'], floor['rho_lo'], floor['rho_hi'])}"
        )
        beyond = _beyond(v, chosen, "all")
        if beyond is not None:
            text += (
                f"; once length is known, its partial ρ with people is "
                f"{interval(beyond['partial'], beyond['partial_lo'], beyond['partial_hi'])}"
            )
        if not ok:
            text += (
                f". **Below the bar** (ρ ≥ {TARGET_RHO} and above the length floor): read this judge's "
                "rankings as weak evidence about quality"
            )
    return {
        "chosen": chosen,
        "chosen_by_evidence": v.get("chosen_by_evidence") or "—",
        "n": v["dataset"]["n"],
        "n_systems": len(v["dataset"]["systems"]),
        "n_boot": v["n_boot"],
        "seed": v["split"]["seed"],
        "n_selection": v["split"]["n_selection"],
        "n_reporting": v["split"]["n_reporting"],
        "rho_all": all_["rho"],
        "rho_reporting": rep["rho"],
        "floor_all": floor["rho"],
        "passes": "yes" if ok else "no",
        "verdict": text,
    }


def judge_note(results_dir: str | Path, validated: bool = True) -> str:
    """The sentence a CoRE page prints about its judge, linking to this page; ``validated=False``
    for a page whose judge is the paper's per-factor configuration, which is not a candidate."""
    v, _ = load(results_dir)
    # a glued Markdown output is rendered as it is, not resolved like a page's own links: name the
    # built HTML page (every CoRE page sits beside it in content/)
    link = f"[Does the judge agree with people?]({PAGE}.html)"
    if validated:
        return f"Judge validity ({link}): {facts(v)['verdict']}."
    return (
        f"This page's judge is the paper's per-factor configuration (rationale, then rating), which was not "
        f"checked against human ratings here; the book's live judge was ({link}): {facts(v)['verdict']}."
    )


def plot_scatter(v: dict[str, Any], scores: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """The chosen judge's score and the length floor against the human overall impression."""
    col = f"score:{v['chosen']}"
    panels = [(col, f"judge {v['chosen']} ({v['score_field']})"), (f"score:{LENGTH}", "words in the system's turns")]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    rng = np.random.default_rng(0)  # jitter only: the human scale has five values
    for ax, (c, label) in zip(axes, panels, strict=True):
        if c not in scores:
            ax.set_title(f"{label}: not judged")
            continue
        for half, marker in (("selection", "o"), ("reporting", "^")):
            d = scores[scores["half"] == half]
            y = d[v["aspect"]].to_numpy(float) + rng.uniform(-0.15, 0.15, len(d))
            ax.scatter(d[c], y, s=14, alpha=0.6, marker=marker, label=f"{half} half")
        ax.set_xlabel(label)
        ax.set_title(label)
    axes[0].set_ylabel(f"human {v['aspect']} (jittered)")
    axes[0].legend(fontsize=8)
    return figures.save(fig, f"{NAME}_scatter", figures_dir)


def plot_aspects(v: dict[str, Any], figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Spearman ρ of every score with every human aspect (all conversations)."""
    grid = aspect_grid(v)
    values = grid.to_numpy(float)
    fig, ax = plt.subplots(figsize=(8.5, 0.45 * len(grid) + 2))
    im = ax.imshow(np.ma.masked_invalid(values), vmin=-1, vmax=1, cmap="BrBG", aspect="auto")
    for (i, j), x in np.ndenumerate(values):
        ax.text(j, i, "—" if np.isnan(x) else f"{x:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(grid.shape[1]), list(grid.columns), rotation=40, ha="right")
    ax.set_yticks(range(grid.shape[0]), list(grid.index))
    ax.set_title("Spearman ρ with each human aspect (all conversations)")
    fig.colorbar(im, ax=ax, label="ρ", shrink=0.8)
    return figures.save(fig, f"{NAME}_aspects", figures_dir)
