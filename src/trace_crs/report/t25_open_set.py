"""Table 25 (Finding 1b): open-set R@1, CD and GS under TF-IDF vs dense top-k prefilters.

Closed R@1 from ``closed_run``, the open-set columns from ``tfidf_run`` (``open_llm``) and
``dense_run`` (``open_llm_dense``), restricted to the baselines of ``tfidf_run``.  The notebook
writes it to ``tables/t25_open_set.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results

NAME = "t25_open_set"  # notebook, module, table CSV and figure stem
PAPER = "table25_open_set_prefilter"  # the printed table it is compared with (report/paper/)
COLUMNS = {
    "R@1_closed": "recall@1_closed",
    "R@1_open_TFIDF_prefilter": "recall@1_tfidf",
    "R@1_open_Dense_prefilter": "recall@1_dense",
    "CD_open_TFIDF_prefilter": "cd_tfidf",
    "CD_open_Dense_prefilter": "cd_dense",
    "GS_open_TFIDF_prefilter": "gs_tfidf",
    "GS_open_Dense_prefilter": "gs_dense",
}


def load(
    results_dir: str | Path,
    closed_run: str = "closed_llm",
    tfidf_run: str = "open_llm",
    dense_run: str = "open_llm_dense",
) -> pd.DataFrame:
    """Reported vs reproduced Table 25."""
    tfidf = results.metric_table(results.load_aggregates(results_dir, tfidf_run))
    dense = results.metric_table(results.load_aggregates(results_dir, dense_run))
    closed = results.metric_table(results.load_aggregates(results_dir, closed_run))
    ours = pd.concat(
        [
            closed[["recall@1"]].add_suffix("_closed"),
            tfidf[["recall@1", "cd", "gs"]].add_suffix("_tfidf"),
            dense[["recall@1", "cd", "gs"]].add_suffix("_dense"),
        ],
        axis=1,
    )
    ours = ours.reindex(tfidf.index)
    ours[["run", "n_dialogues", "n_turns", "signature"]] = tfidf[["run", "n_dialogues", "n_turns", "signature"]]
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t25_open_set``."""
    return figures.save(compare.plot(df, "Table 25: this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Closed vs open R@1 of LLM Zero-Shot (the Finding 1b drop) on this run."""
    zs = df[df["baseline"] == "llm_zero_shot"].set_index("column")["ours"]
    return {
        "zs_closed": float(zs.get("R@1_closed", float("nan"))),
        "zs_open_tfidf": float(zs.get("R@1_open_TFIDF_prefilter", float("nan"))),
        "zs_open_dense": float(zs.get("R@1_open_Dense_prefilter", float("nan"))),
    }
