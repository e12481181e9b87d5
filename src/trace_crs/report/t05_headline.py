"""Table 5: closed-set headline, non-LLM (run ``closed``) and LLM (run ``closed_llm``) rows.

``load`` joins our aggregates with the paper's printed Table 5 (long reported-vs-reproduced
frame, see :mod:`trace_crs.report.compare`) and writes
``<results_dir>/tables/t05_headline.csv``.  The aggregates are read by
:mod:`trace_crs.report.results`, which names their writer and the metric registry that defines
each column (``R@1`` → ``recall@1``, ``CGS`` → ``cgs``: :data:`COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import kendalltau

from trace_crs.baselines.registry import BASELINES, SESSION_ISOLATED
from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results

# Table 5 rows: the 13 session-isolated baselines (§4; Memory-Aug. is reported apart and
# Itinerary-LLM appears only in Tables 17 and 22).
TABLE5_BASELINES = tuple(b for b in BASELINES if b in SESSION_ISOLATED and b != "itinerary_llm")

NAME = "t05_headline"  # notebook, module, table CSV and figure stem
PAPER = "table5_headline"  # the printed table it is compared with (report/paper/)
# printed column -> metric key; the headers are the registry's labels as Table 5 prints them
COLUMNS = metric_registry.columns(
    ("recall@1", "recall@3", "mrr", "bleu4", "rouge_l", "cgs", "cd", "tsr", "t2r"), paper.header(PAPER)
)
# The paper's rows of LLM Zero-Shot on API models of other families (its 1k subset): this build runs
# local models only, so they need the user's API model (their cells read "needs input").
CROSS_FAMILY = "LLM Zero-Shot cross-family validation"
CROSS_FAMILY_NEEDS = (
    "an API model: these rows are LLM Zero-Shot on another model family on a seeded 1k subset; "
    "trace-crs evaluate --baselines llm_zero_shot --subset 1000 --set lm.model=<provider/model> runs it"
)
HEADER = {key: col for col, key in COLUMNS.items()}  # metric key -> its Table 5 column
# The page shows Table 5 one axis at a time, so each fits the text column: the paper's three
# competencies (§2, §6: accuracy, grounding, recovery), with text overlap apart (§6.2 reads it
# beside grounding but it scores the reference response, not the reviews).
AXES = {
    axis: tuple(HEADER[k] for k in keys)
    for axis, keys in {
        "accuracy": ("recall@1", "recall@3", "mrr"),
        "grounding": ("cgs", "cd"),
        "recovery and dialogue success": ("tsr", "t2r"),
        "text overlap with the reference": ("bleu4", "rouge_l"),
    }.items()
}


def load(
    results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm"), baselines: Sequence[str] | None = None
) -> pd.DataFrame:
    """Reported vs reproduced Table 5."""
    aggregates = results.load_aggregates(results_dir, runs, baselines)
    if baselines is None:  # every Table 5 baseline that was scored, and no other
        aggregates = aggregates[aggregates["baseline"].isin(TABLE5_BASELINES)]
    ours = results.metric_table(aggregates)
    printed = paper.table(PAPER)
    long = compare.side_by_side(printed, ours, COLUMNS)
    cross_family = printed.loc[printed["group"] == CROSS_FAMILY, "Baseline"]
    return compare.needs(long, long["Baseline"].isin(cross_family) & long["baseline"].isna(), CROSS_FAMILY_NEEDS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed for every Table 5 cell; saved as ``figures/t05_headline``."""
    t2r = HEADER["t2r"]
    fig = compare.plot(df[df["column"] != t2r], f"Table 5: this run vs paper ({t2r} omitted)")
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Numbers quoted in the notebook prose (glued)."""
    r1 = df[(df["column"] == HEADER["recall@1"]) & df["ours"].notna()]
    best = r1.loc[r1["ours"].idxmax()]
    return {
        "n_baselines": int(r1["baseline"].nunique()),
        "best_r1_label": str(best["Baseline"]),
        "best_r1": float(best["ours"]),
        "best_r1_paper": float(best["paper"]),
        "mean_abs_diff_r1": float(r1["diff"].abs().mean()),
        "mean_abs_diff_cgs": float(df.loc[df["column"] == HEADER["cgs"], "diff"].abs().mean()),
        **ordering_agreement(df),
        **ordering_agreement(df, HEADER["cgs"]),
        **ordering_agreement(df, HEADER["cd"]),
    }


def ordering_agreement(df: pd.DataFrame, column: str = HEADER["recall@1"], family: str = "non_llm") -> dict[str, Any]:
    """Kendall τ_b between the reproduced and the printed ordering of ``family`` rows on
    ``column`` (scipy ``kendalltau``), with its two-sided p-value and the number of rows; keys
    ``tau_<column slug>_<family>`` (``tau_r1_non_llm``, ``tau_cgs_non_llm``, …)."""
    key = f"tau_{SLUGS.get(column, column.lower())}_{family}"
    rows = df[(df["column"] == column) & df["baseline"].map(lambda b: compare.BASELINES.get(b, ("", ""))[1] == family)]
    rows = rows.dropna(subset=["paper", "ours"])
    if len(rows) < 2 or rows["paper"].nunique() < 2 or rows["ours"].nunique() < 2:  # τ undefined on a constant
        return {key: float("nan"), f"{key}_p": float("nan"), f"{key}_n": int(len(rows))}
    res = kendalltau(rows["paper"], rows["ours"])
    return {key: float(res.statistic), f"{key}_p": float(res.pvalue), f"{key}_n": int(len(rows))}


SLUGS = {col: metric_registry.slug(key) for col, key in COLUMNS.items()}  # column -> slug in glued keys


def ordering_table(df: pd.DataFrame, family: str = "non_llm") -> pd.DataFrame:
    """One row per Table 5 column: Kendall τ_b of the ``family`` rows' ordering against the
    paper's (:func:`ordering_agreement`), its p-value and n; R@1 first, then grounding (CGS,
    CiteDensity), then the rest in the table's order."""
    first = [HEADER["recall@1"], HEADER["cgs"], HEADER["cd"]]
    order = first + [c for c in COLUMNS if c not in first]
    rows = []
    for column in order:
        out = ordering_agreement(df, column, family)
        key = f"tau_{SLUGS[column]}_{family}"
        rows.append(
            {
                "Metric": column,
                "Kendall τ_b": out[key],
                "p (two-sided)": out[f"{key}_p"],
                "n baselines": out[f"{key}_n"],
            }
        )
    return pd.DataFrame(rows)


COMPOSITION = "appendixL_sentence_categories"
COMPOSITION_COLUMNS = {
    "Quote %": "quote",
    "Framing %": "framing",
    "Rating-meta %": "rating_meta",
    "Other-claim %": "other_claim",
}


def composition(
    results_dir: str | Path, run: str = "closed", baselines: Sequence[str] = ("tfidf", "rag_citation", "llm_zero_shot")
) -> pd.DataFrame:
    """Sentence-category composition (App. L) of the saved responses of ``run`` beside the
    paper's, in % (:func:`trace_crs.metrics.sentence_categories.composition` on records.parquet);
    baselines not in the run are left out."""
    from trace_crs.metrics.sentence_categories import composition as shares

    path = results.records_file(results_dir, run)
    records = pd.read_parquet(path, columns=["baseline", "text"])
    printed = paper.table(COMPOSITION).set_index("Baseline")
    rows = []
    for key in [b for b in baselines if b in set(records["baseline"])]:
        ours = shares(records.loc[records["baseline"] == key, "text"])
        label = compare.label(key)
        for col, cat in COMPOSITION_COLUMNS.items():
            cell = printed.at[label, col] if label in printed.index else ""
            rows.append(
                {
                    "Baseline": label,
                    "category": col,
                    "paper": float(cell) if cell else float("nan"),
                    "ours": 100 * ours[cat],
                    "n_sentences": ours["n_sentences"],
                }
            )
    return pd.DataFrame(rows)
