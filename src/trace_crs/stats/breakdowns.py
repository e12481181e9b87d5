"""Candidate-pool size (Table 24, App. P) and difficulty tiers (Table 23, App. M).

Both are means of per-turn metrics per baseline within a group: ``pool`` (8 / 16 / 32, a
column added when concatenating the runs' per-turn frames) or ``difficulty``
(easy < medium < hard < expert, the generation-time tier).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from trace_crs.stats.frames import require_columns, require_finite

DIFFICULTY_TIERS: tuple[str, ...] = ("easy", "medium", "hard", "expert")


def breakdown(per_turn: pd.DataFrame, by: str, metrics: Sequence[str], source: str = "per-turn scores") -> pd.DataFrame:
    """``baseline, <by>, metric, value, n_turns``: mean of each metric per baseline and group."""
    require_columns(per_turn, ["baseline", by, *metrics], source)
    for m in metrics:
        require_finite(per_turn, m, source)
    if per_turn[by].isna().any():
        i = int(per_turn[by].isna().to_numpy().argmax())
        raise ValueError(f"{source}: row {per_turn.index[i]!r} has no {by!r}")
    long = per_turn.melt(id_vars=["baseline", by], value_vars=list(metrics), var_name="metric")
    out = long.groupby(["baseline", by, "metric"], sort=True)["value"].agg(["mean", "size"]).reset_index()
    return out.rename(columns={"mean": "value", "size": "n_turns"})


def difficulty_breakdown(per_turn: pd.DataFrame, metrics: Sequence[str] = ("recall@1",)) -> pd.DataFrame:
    """R@1 (or other metrics) by difficulty tier, tiers in the order easy → expert."""
    unknown = sorted(set(per_turn.get("difficulty", pd.Series(dtype=str)).dropna()) - set(DIFFICULTY_TIERS))
    if unknown:
        raise ValueError(f"per-turn scores: unknown difficulty tier(s) {unknown}; expected {list(DIFFICULTY_TIERS)}")
    out = breakdown(per_turn, "difficulty", metrics)
    out["difficulty"] = pd.Categorical(out["difficulty"], categories=DIFFICULTY_TIERS, ordered=True)
    return out.sort_values(["baseline", "metric", "difficulty"], ignore_index=True)


def pool_size_breakdown(
    per_turn: pd.DataFrame, metrics: Sequence[str] = ("recall@1", "recall@3", "gs")
) -> pd.DataFrame:
    """R@1, R@3 and GS by candidate-pool size (column ``pool``)."""
    return breakdown(per_turn, "pool", metrics)
