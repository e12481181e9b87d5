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

from trace_crs import DEFAULT_SEED
from trace_crs.dialogues.schema import load_dialogues
from trace_crs.dialogues.stats import corpus_stats
from trace_crs.kb.kbstats import summarize
from trace_crs.kb.store import load_kb
from trace_crs.report import figures, paper, results
from trace_crs.stats.bootstrap import N_BOOT

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


LEAKAGE_BEFORE = Path(__file__).with_name("reference") / "leakage_before.json"


def leakage(dialogues_path: str | Path) -> pd.DataFrame:
    """The corpus audit written by ``trace-crs dialogues leakage`` (``leakage.json`` beside the
    corpus) beside the same audit of the generator before the paraphrase bank and the persona
    prior (``reference/leakage_before.json``, measured once; its provenance is in the file)."""
    import json

    path = results.require(Path(dialogues_path).with_name("leakage.json"), "leakage audit of the corpus")
    now, before = json.loads(path.read_text()), json.loads(LEAKAGE_BEFORE.read_text())
    rows = [
        ("keyword decoder: exact acceptable set (simple)", "decoder", "exact_set_simple"),
        ("keyword decoder: exact acceptable set (strong)", "decoder", "exact_set_strong"),
        ("keyword decoder: hidden-preference items recovered", "decoder", "preference_item_recall"),
    ]
    rows.append(("price ceiling read by Price Alignment = hidden price_max", "decoder", "price_ceiling_recall"))
    out = [
        {"measure": label, "before": before[part].get(key, float("nan")), "this corpus": now[part][key]}
        for label, part, key in rows
    ]
    for facet in now["persona_information"]:
        out.append(
            {
                "measure": f"persona → {facet}: MI above shuffled control (bits)",
                "before": before["persona_information"][facet]["excess_bits"],
                "this corpus": now["persona_information"][facet]["excess_bits"],
            }
        )
    frame = pd.DataFrame(out).set_index("measure")
    frame.attrs["n_rec_turns"] = int(now["decoder"]["rec_turns"])
    return frame


def leakage_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the data card (glued)."""
    mi = df[df.index.str.startswith("persona")]["this corpus"]
    return {
        "exact_simple": float(df.iloc[0]["this corpus"]),
        "exact_strong": float(df.iloc[1]["this corpus"]),
        "exact_strong_before": float(df.iloc[1]["before"]),
        "item_recall": float(df.iloc[2]["this corpus"]),
        "price_recall": float(df.iloc[3]["this corpus"]),
        "mi_min": float(mi.min()),
        "mi_min_facet": str(mi.idxmin()).split("→ ")[1].split(":")[0],
        "n_rec_turns": int(df.attrs["n_rec_turns"]),
    }


PERSONA_PAIR = ("persona", "aspect", "recall@1")  # Persona-Grounded = Aspect + persona signals


def persona_slice(
    results_dir: str | Path, run: str = "closed", n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """Persona-Grounded minus Aspect R@1 on the persona-dependent turns (hidden preferences
    include something the persona type's prior favours, ``persona_dependent`` in the per-turn
    scores) and on the rest: a paired dialogue-cluster bootstrap per slice
    (:func:`trace_crs.stats.bootstrap.bootstrap_pairs`; "insufficient n" below its minimum)."""
    from trace_crs.stats.bootstrap import bootstrap_pairs

    a, b, metric = PERSONA_PAIR
    turns = results.load_per_turn(results_dir, run, baselines=[a, b])
    rows = []
    for label, keep in (("persona-dependent", True), ("other", False)):
        part = turns[turns["persona_dependent"] == keep]
        if part.empty:  # e.g. a tiny profile: no dialogue on this side
            rows.append(
                {
                    "slice": label,
                    "n_turns": 0,
                    "n_dialogues": 0,
                    "delta": float("nan"),
                    "ci_low": float("nan"),
                    "ci_high": float("nan"),
                    "verdict": "insufficient n",
                    a: float("nan"),
                    b: float("nan"),
                }
            )
            continue
        row = bootstrap_pairs(part, [PERSONA_PAIR], n_boot, seed, source=f"{run} per-turn scores").iloc[0]
        rows.append(
            {
                "slice": label,
                "n_turns": int(len(part) // 2),
                **row.to_dict(),
                a: float(part.loc[part["baseline"] == a, metric].mean()),
                b: float(part.loc[part["baseline"] == b, metric].mean()),
            }
        )
    return pd.DataFrame(rows).set_index("slice")


# Targets of the evidence contract (data card, "How close are the synthetic reviews to real
# ones?"): a quote grounds in one POI (§2.2); travellers negate; gold honours what they say.
EVIDENCE_TARGETS = {"quote_single": "≥ 0.95", "negated": "≥ 0.10", "disjunctive": "—", "avoid": "0", "either": "0"}


def share_ci(
    frame: pd.DataFrame, metric: str, denominator: str | None, n_boot: int, seed: int
) -> dict[str, float | int]:
    """Share ``Σ metric / Σ denominator`` (or the mean of ``metric``) over dialogue rows with
    its dialogue-cluster bootstrap 95 % interval (:func:`trace_crs.stats.intervals.cluster_mean_ci`).
    When every replicate is equal (no event, or all rows events) the bootstrap interval is a
    point, so the exact Clopper–Pearson interval of ``k`` in ``n`` is given instead
    (statsmodels; rows treated as independent); NaN with no row."""
    from statsmodels.stats.proportion import proportion_confint

    from trace_crs.stats.intervals import cluster_mean_ci

    nan = float("nan")
    if frame.empty:
        return {"share": nan, "ci_low": nan, "ci_high": nan, "k": 0, "n": 0}
    frame = frame.astype({metric: float})
    k = int(frame[metric].sum())
    n = int(frame[denominator].sum()) if denominator else len(frame)
    ci = cluster_mean_ci(frame, metric, n_boot, seed, denominator=denominator)
    low, high = ci["ci_low"], ci["ci_high"]
    if n and high == low:
        low, high = (float(b) for b in proportion_confint(k, n, alpha=0.05, method="beta"))
    return {"share": k / n if n else nan, "ci_low": float(low), "ci_high": float(high), "k": k, "n": n}


def evidence(
    kb_dir: str | Path, dialogues_path: str | Path, n_boot: int = N_BOOT, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """Quote specificity and travellers' language of the corpus (``dialogues.stats``): per
    measure the share, its 95 % interval (:func:`share_ci`; quotes cluster in dialogues), the
    events ``k`` out of ``n`` and the target."""
    from trace_crs.dialogues.quotes import quote_owner_counts
    from trace_crs.dialogues.stats import preference_rows

    kb = load_kb(results.require(kb_dir, "KB directory"))
    dialogues = load_dialogues(results.require(dialogues_path, "dialogue corpus"))
    quotes = pd.DataFrame(quote_owner_counts(dialogues, kb), columns=["dialogue_id", "n_pois"])
    quotes = quotes.assign(single=quotes["n_pois"] == 1, quotes=1).groupby("dialogue_id")[["single", "quotes"]]
    prefs = pd.DataFrame(preference_rows(dialogues, kb))
    cells = [
        (
            "quote_single",
            "cited quotes found in exactly one POI's reviews",
            quotes.sum().reset_index(),
            "single",
            "quotes",
        ),
        ("negated", "dialogues with a negated preference", prefs, "negated", None),
        ("disjunctive", "dialogues with a disjunctive preference", prefs, "disjunctive", None),
        ("avoid", "(unrejected gold POI, negated preference) pairs violated", prefs, "avoid_violations", "avoid_pairs"),
        (
            "either",
            "(unrejected gold POI, disjunctive preference) pairs violated",
            prefs,
            "either_violations",
            "either_pairs",
        ),
    ]
    rows = [
        {"key": key, "measure": label, **share_ci(frame, metric, den, n_boot, seed), "target": EVIDENCE_TARGETS[key]}
        for key, label, frame, metric, den in cells
    ]
    return pd.DataFrame(rows).set_index("key")


def evidence_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers of the evidence table quoted in the data card (glued): per row its share,
    interval and ``k``/``n``."""
    out: dict[str, Any] = {}
    for key, row in df.iterrows():
        out |= {f"{key}_share": float(row["share"]), f"{key}_low": float(row["ci_low"])}
        out |= {f"{key}_high": float(row["ci_high"]), f"{key}_k": int(row["k"]), f"{key}_n": int(row["n"])}
    return out


def evidence_display(df: pd.DataFrame) -> pd.DataFrame:
    """The evidence table for the page: each share as ``0.250 [0.18, 0.31]`` (the book's
    interval form, :func:`trace_crs.report.present.interval`), then ``k``, ``n`` and the target."""
    from trace_crs.report import present

    shown = [present.interval(r["share"], r["ci_low"], r["ci_high"]) for _, r in df.iterrows()]
    return pd.DataFrame(
        {"measure": df["measure"].to_list(), "share [95 % interval]": shown, "k": df["k"].to_list()}
        | {"n": df["n"].to_list(), "target": df["target"].to_list()}
    )
