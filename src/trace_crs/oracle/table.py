"""The oracle input table (ARCHITECTURE.md §6): one row per (dialogue_id, baseline).

``quality`` is any per-dialogue metric (higher is better) and ``cost`` any non-negative cost
($, tokens, seconds).  The table must be a complete grid — every dialogue has exactly one row
per baseline — with no NaN quality and no negative or NaN cost; anything else is a
``ValueError`` naming the row and field.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from trace_crs.stats.frames import require_columns, require_finite


@dataclass(frozen=True)
class OracleInstance:
    """Dense form: ``quality`` and ``cost`` are (n_dialogues × n_baselines), rows and columns sorted."""

    dialogue_ids: np.ndarray
    baselines: tuple[str, ...]
    quality: np.ndarray
    cost: np.ndarray

    def take(self, rows: np.ndarray) -> OracleInstance:
        """The instance restricted to (possibly repeated) dialogue rows, e.g. a bootstrap resample."""
        return OracleInstance(self.dialogue_ids[rows], self.baselines, self.quality[rows], self.cost[rows])


def oracle_instance(
    table: pd.DataFrame, quality: str = "quality", cost: str = "cost", source: str = "oracle table"
) -> OracleInstance:
    """Validate ``table`` and pivot it into an :class:`OracleInstance`."""
    require_columns(table, ["dialogue_id", "baseline", quality, cost], source)
    if table.empty:
        raise ValueError(f"{source}: no rows")
    require_finite(table, quality, source)
    require_finite(table, cost, source, min_value=0.0)
    dup = table.duplicated(["dialogue_id", "baseline"], keep=False)
    if dup.any():
        row = table[dup].iloc[0]
        raise ValueError(
            f"{source}: duplicate rows for dialogue_id={row['dialogue_id']!r}, " f"baseline={row['baseline']!r}"
        )
    q = table.pivot(index="dialogue_id", columns="baseline", values=quality).sort_index().sort_index(axis=1)
    c = table.pivot(index="dialogue_id", columns="baseline", values=cost).reindex_like(q)
    holes = q.isna().to_numpy()
    if holes.any():
        i, j = np.argwhere(holes)[0]
        raise ValueError(
            f"{source}: dialogue_id={q.index[i]!r} has no row for baseline {q.columns[j]!r} "
            f"({int(holes.sum())} missing (dialogue, baseline) cells); the oracle needs a full grid"
        )
    return OracleInstance(q.index.to_numpy(), tuple(map(str, q.columns)), q.to_numpy(float), c.to_numpy(float))
