"""CGS formula variants (Appendix L): does the baseline ranking depend on how CGS combines GS,
CD and PC?

``stats.cgs_variants.cgs_variant_sensitivity`` over the runs' per-turn scores: every variant's
value per baseline and the Spearman ρ of its baseline ranking against the default CGS.  Untabled
in the paper (its prose gives the ρ range); the notebook writes ``tables/cgs_formula_variants.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.report import figures, paper, results, sensitivity
from trace_crs.stats.cgs_variants import cgs_variant_sensitivity

NAME = "cgs_formula_variants"  # module, table CSV and figure stem (shown on the Table 22 page)


def load(results_dir: str | Path, runs: Sequence[str] = ("closed", "closed_llm")) -> pd.DataFrame:
    """Tidy ``baseline, variant, value, spearman_vs_default`` (as returned by ``stats``)."""
    return cgs_variant_sensitivity(results.load_per_turn(results_dir, runs))


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Spearman ρ of each variant's ranking vs the default; ``figures/cgs_formula_variants``."""
    printed = paper.claim("App. L", "Spearman rank correlation of alternative CGS formulas with current CGS")
    band = cast("tuple[float, float]", tuple(float(v) for v in printed.split("–"))) if "–" in printed else None
    fig = sensitivity.bars(
        df.drop_duplicates("variant"), "variant", "spearman_vs_default", "Spearman ρ vs default CGS ranking", band=band
    )
    return figures.save(fig, NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Number of alternative formulas, their ρ range and the paper's printed range."""
    alt = df[df["variant"] != "default"].drop_duplicates("variant")
    return {
        "n_variants": int(len(alt)),
        "min_rho": float(alt["spearman_vs_default"].min()),
        "max_rho": float(alt["spearman_vs_default"].max()),
        "paper_range": paper.claim(
            "App. L", "Spearman rank correlation of alternative CGS formulas " "with current CGS"
        ),
    }
