"""Table 27 (Finding 1c): single- vs multi-reference R@1 (Appendix S).

From the per-turn frames of the closed runs: ``SingleRef_R@1`` = mean ``recall@1``,
``MR_R@1_all`` = mean ``mr_recall@1``, ``MR_R@1_alt_only`` = mean ``mr_recall@1`` over
turns with an acceptable alternative, ``Delta_alt_only_pp`` = 100 × mean(``mr_recall@1``
− ``recall@1``) over those turns; :func:`intervals` bootstraps the LLM rows over dialogues.
The notebook writes it to ``tables/t27_multi_reference.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import compare, figures, paper, results
from trace_crs.stats.intervals import Derived, turn_mean

NAME = "t27_multi_reference"  # notebook, module, table CSV and figure stem
PAPER = "table27_multi_reference"  # the printed table it is compared with (report/paper/)
COLUMNS = {
    "SingleRef_R@1": "single",
    "MR_R@1_all": "mr_all",
    "MR_R@1_alt_only": "mr_alt",
    "Delta_alt_only_pp": "delta_alt_pp",
}
_ALT = ("recall@1", "mr_recall@1", "has_alternative")


def _has_alternative(turns: pd.DataFrame) -> pd.Series:
    return turns["has_alternative"].astype(bool)


CI_COLUMNS = {
    "SingleRef_R@1": Derived(turn_mean("recall@1"), needs=("recall@1",)),
    "MR_R@1_all": Derived(turn_mean("mr_recall@1"), needs=("mr_recall@1",)),
    "MR_R@1_alt_only": Derived(turn_mean("mr_recall@1"), rows=_has_alternative, needs=_ALT),
    "Delta_alt_only_pp": Derived(
        lambda f: 100 * float((f["mr_recall@1"] - f["recall@1"]).mean()), rows=_has_alternative, needs=_ALT
    ),
}


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Reported vs reproduced Table 27."""
    turns = results.load_per_turn(results_dir, runs)
    alt = turns[turns["has_alternative"].astype(bool)]
    by, alt_by = turns.groupby("baseline"), alt.groupby("baseline")
    ours = pd.DataFrame(
        {
            "single": by["recall@1"].mean(),
            "mr_all": by["mr_recall@1"].mean(),
            "mr_alt": alt_by["mr_recall@1"].mean(),
            "delta_alt_pp": 100 * (alt["mr_recall@1"] - alt["recall@1"]).groupby(alt["baseline"]).mean(),
            "n_turns": by.size(),
            "run": by["run"].first(),
        }
    )
    return compare.side_by_side(paper.table(PAPER), ours, COLUMNS)


intervals = compare.intervals_for(CI_COLUMNS, "the alt-only columns over the dialogues with an alternative")


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed (Δ in pp omitted); saved as ``figures/t27_multi_reference``."""
    fig = compare.plot(df[df["column"] != "Delta_alt_only_pp"], "Table 27: this run vs paper")
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Range of the multi-reference lift (pp) across baselines on this run."""
    wide = df.pivot_table(index="baseline", columns="column", values="ours")
    lift = 100 * (wide["MR_R@1_all"] - wide["SingleRef_R@1"])
    return {"lift_min_pp": float(lift.min()), "lift_max_pp": float(lift.max()), "n_baselines": int(len(lift))}
