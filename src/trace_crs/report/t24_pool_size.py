"""Table 24 (Appendix L): R@1, R@3 and GS at candidate pools of 8, 16 and 32.

Pool 8 is the ``closed`` run, 16 and 32 the ``pool16`` / ``pool32`` runs, restricted to the
baselines of the pool-16 run.  The notebook writes the long reported-vs-reproduced frame to
``tables/t24_pool_size.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, figures, paper, results

NAME = "t24_pool_size"  # notebook, module, table CSV and figure stem
PAPER = "table24_pool_size"  # the printed table it is compared with (report/paper/)
METRICS = metric_registry.columns(("recall@1", "recall@3", "gs"))  # label -> metric key


def load(
    results_dir: str | Path, pool_runs: Sequence[tuple[int, str]] = ((8, "closed"), (16, "pool16"), (32, "pool32"))
) -> pd.DataFrame:
    """Reported vs reproduced Table 24."""
    tables = [(size, results.metric_table(results.load_aggregates(results_dir, run))) for size, run in pool_runs]
    keep = tables[1][1].index if len(tables) > 1 else tables[0][1].index
    ours = pd.concat([t[list(METRICS.values())].add_suffix(f"_{size}") for size, t in tables], axis=1).reindex(keep)
    ours["run"] = "+".join(run for _, run in pool_runs)
    columns = {f"{col}_{size}": f"{metric}_{size}" for col, metric in METRICS.items() for size, _ in pool_runs}
    return compare.side_by_side(paper.table(PAPER), ours, columns)


def plot(df: pd.DataFrame, figures_dir: str | Path = figures.FIGURES_DIR) -> Figure:
    """Ours vs printed; saved as ``figures/t24_pool_size``."""
    return figures.save(compare.plot(df, "Table 24: this run vs paper"), NAME, figures_dir)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    """Mean R@1 over baselines at the first and the last pool, and the drop between them."""
    r1 = df[df["column"].str.contains(metric_registry.label("recall@1"), regex=False)]
    return compare.mean_drop(r1, r1["column"].iloc[0], r1["column"].iloc[-1])
