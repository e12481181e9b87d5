"""Table 3: KB and dialogue-corpus statistics, printed vs this profile's data.

KB figures from :func:`trace_crs.kb.kbstats.summarize`, corpus figures from
:func:`trace_crs.dialogues.stats.corpus_stats`; this module only maps them to the paper's
rows.  "POIs per type" is the mean over the three POI types; the rejection rate is in %.
The printed price range is text and has no numeric twin.  The notebook writes it to
``tables/t03_dataset.csv`` (``statistic, paper, ours, diff``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trace_crs.dialogues.schema import load_dialogues
from trace_crs.dialogues.stats import corpus_stats
from trace_crs.kb.kbstats import summarize
from trace_crs.kb.store import load_kb
from trace_crs.report import figures, paper, results

NAME = "t03_dataset"  # notebook, module, table CSV and figure stem
PAPER = "table3_dataset_stats"  # the printed table it is compared with (report/paper/)
Getter = Callable[[dict[str, Any], dict[str, Any]], float]
# paper statistic -> value from (kb summary, corpus stats)
ROWS: dict[str, Getter] = {
    "KB: POIs": lambda k, d: k["pois"],
    "KB: POIs per type (restaurant / hotel / attraction, each)": lambda k, d: float(
        np.mean(list(k["pois_per_type"].values()))
    ),
    "KB: Reviews": lambda k, d: k["reviews"],
    "KB: Avg. reviews per POI": lambda k, d: k["reviews_per_poi_mean"],
    "KB: Avg. stars": lambda k, d: k["stars_mean_poi"],
    "KB: Unique categories": lambda k, d: k["unique_categories"],
    "KB: Cities (U.S., Yelp Academic)": lambda k, d: len(k["cities"]),
    "Dialogues: Total dialogues": lambda k, d: d["dialogues"],
    "Dialogues: Avg. turns / dialogue": lambda k, d: d["turns_mean"],
    "Dialogues: Avg. turns / dialogue, parenthetical value (printed '10.5 (1.9)'; likely SD)": lambda k, d: d[
        "turns_sd"
    ],
    "Dialogues: Avg. POIs rec. / dialogue": lambda k, d: d["pois_recommended_mean"],
    "Dialogues: Persona archetypes": lambda k, d: d["persona_archetypes"],
    "Dialogues: Candidates / dialogue": lambda k, d: d["candidates_per_dialogue"],
    "Dialogues: Rejection rate (%)": lambda k, d: 100 * d["rejection_rate"],
    **{
        f"Difficulty (generation-time): {t.capitalize()} (dialogues)": (lambda k, d, t=t: d["tiers"][t])  # type: ignore[misc]  # t=t binds the tier; called as (k, d)
        for t in ("easy", "medium", "hard", "expert")
    },
}


# Rows whose value a generator setting fixes, so agreeing with the paper is not evidence:
# ``set`` = equal by construction, ``targeted`` = drawn around the paper's value.  Each names the
# setting (``module:NAME`` is checked to exist by :func:`inputs`); the page footnotes the marker.
_TIERS = ("set", "trace_crs.dialogues.tiers:DEFAULT_MIX", "the paper's difficulty mix, allocated by largest remainder")
INPUTS: dict[str, tuple[str, str, str]] = {
    "KB: POIs": ("set", "trace_crs.kb.synthetic:build_synthetic", "8 cities × 3 types × per_cell (make: KB_PER_CELL)"),
    "KB: POIs per type (restaurant / hotel / attraction, each)": (
        "set",
        "trace_crs.kb.synthetic:build_synthetic",
        "8 cities × per_cell",
    ),
    "KB: Avg. reviews per POI": ("targeted", "trace_crs.kb.synthetic:MEAN_REVIEWS", "reviews per POI drawn around it"),
    "KB: Avg. stars": (
        "targeted",
        "trace_crs.kb.synthetic:draw_review_stars",
        "latent quality tuned to the paper's mean",
    ),
    "KB: Cities (U.S., Yelp Academic)": ("set", "trace_crs.kb.geo:CITIES", "the paper's 8 cities"),
    "Dialogues: Total dialogues": ("set", "trace_crs.dialogues.generate:generate_simulated", "--n (make: N_DIALOGUES)"),
    "Dialogues: Persona archetypes": ("set", "trace_crs.dialogues.personas:archetypes", "App. I's archetypes"),
    "Dialogues: Candidates / dialogue": ("set", "trace_crs.dialogues.pools:CLOSED_SIZE", "the closed pool's size"),
    **{
        f"Difficulty (generation-time): {t.capitalize()} (dialogues)": _TIERS
        for t in ("easy", "medium", "hard", "expert")
    },
}
INPUT_MARK = {"set": "input (set)", "targeted": "input (targeted)"}


def inputs() -> pd.DataFrame:
    """:data:`INPUTS` as a table (``statistic, kind, setting, how``), every setting checked to exist."""
    import importlib

    rows = []
    for statistic, (kind, target, how) in INPUTS.items():
        module, _, name = target.partition(":")
        if not hasattr(importlib.import_module(module), name):
            raise ValueError(f"{statistic}: {target} does not exist")
        rows.append(
            {"statistic": statistic, "kind": kind, "setting": f"`{target.removeprefix('trace_crs.')}`", "how": how}
        )
    return pd.DataFrame(rows)


def compare_stats(kb_stats: dict[str, Any], corpus: dict[str, Any]) -> pd.DataFrame:
    """Paper rows in printed order with ``paper, ours, diff`` (text-only rows: ours NaN) and
    ``input``: the marker of a row a generator setting fixes (:data:`INPUTS`), else empty."""
    printed = paper.table(PAPER)
    ours = [float(ROWS[s](kb_stats, corpus)) if s in ROWS else float("nan") for s in printed["statistic"]]
    frame = pd.DataFrame(
        {
            "statistic": printed["statistic"],
            "paper_printed": printed["value"],
            "paper": paper.numeric(printed["value"]),
            "ours": ours,
        }
    )
    frame["diff"] = frame["ours"] - frame["paper"]
    frame["input"] = [INPUT_MARK[INPUTS[s][0]] if s in INPUTS else "" for s in frame["statistic"]]
    return frame


def load(results_dir: str | Path, kb_dir: str | Path, dialogues_path: str | Path) -> pd.DataFrame:
    """Table 3 for the profile's KB and corpus."""
    kb = load_kb(results.require(kb_dir, "KB directory"))
    corpus = corpus_stats(load_dialogues(results.require(dialogues_path, "dialogue corpus")))
    frame = compare_stats(summarize(kb), corpus)
    return frame


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ratio ours / paper per statistic (log scale: the profile may be much smaller)."""
    both = df.dropna(subset=["paper", "ours"])
    both = both[both["paper"] > 0]
    fig, ax = plt.subplots(figsize=(6.5, 0.3 * len(both) + 1))
    fixed = both["input"].astype(bool) if "input" in both else pd.Series(False, index=both.index)
    ax.barh(both["statistic"], both["ours"] / both["paper"], color=["0.7" if f else "tab:blue" for f in fixed])
    ax.axvline(1, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set(xlabel="this profile / paper (grey: a generator input, not a result)")
    ax.tick_params(axis="y", labelsize=7)
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Sizes quoted in the prose."""
    ours = df.set_index("statistic")["ours"]
    return {
        "n_pois": int(ours["KB: POIs"]),
        "n_dialogues": int(ours["Dialogues: Total dialogues"]),
        "turns_mean": float(ours["Dialogues: Avg. turns / dialogue"]),
    }
