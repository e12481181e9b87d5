"""The oracle's input table: per (dialogue, baseline) joint quality and cost (ARCHITECTURE §6).

* ``quality`` — the **joint score**: the mean of the components defined for the dialogue among
  (i) the mean R@1 over its recommend/compare turns, (ii) the mean CGS over the same turns and
  (iii) rejection recovery (undefined without a rejection, then the mean of (i) and (ii));
* ``cost`` — a per-dialogue cost of :func:`trace_crs.stats.cost.dialogue_costs` over run records
  (summed over the dialogue's turns): ``latency_s`` (wall seconds), ``cost_usd`` ($ from the
  dated price table) or ``tokens`` (prompt + completion).

Only the dialogues on which every baseline has both a quality and a cost are kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from trace_crs.stats.cost import dialogue_costs

COMPONENTS = ("recall@1", "cgs", "rejection_recovery")
COSTS = {"latency_s": "seconds", "cost_usd": "usd", "tokens": "tokens"}  # option → dialogue_costs column


def joint_quality(
    per_turn: pd.DataFrame, per_dialogue: pd.DataFrame, metrics: Sequence[str] = COMPONENTS
) -> pd.DataFrame:
    """``dialogue_id, baseline, quality``: the mean of the ``metrics`` defined for the dialogue
    (NaN components skipped) — a metric of the per-turn frame first averaged over the dialogue's
    scored turns, one of the per-dialogue frame as it stands.  The oracle's joint score is the
    default :data:`COMPONENTS` (module docstring); ``trace-crs stats oracle --quality`` names
    others.  A dialogue in either frame is kept; a metric in neither is an error."""
    keys = ["dialogue_id", "baseline"]
    turn_metrics = [m for m in metrics if m in per_turn.columns]
    dialogue_metrics = [m for m in metrics if m not in turn_metrics and m in per_dialogue.columns]
    missing = [m for m in metrics if m not in turn_metrics and m not in dialogue_metrics]
    if missing:
        raise ValueError(f"quality metric(s) {missing} are in neither the per-turn nor the per-dialogue scores")
    parts = per_turn.groupby(keys)[turn_metrics].mean()
    parts = parts.join(per_dialogue.set_index(keys)[dialogue_metrics], how="outer")
    return parts[list(metrics)].mean(axis=1, skipna=True).rename("quality").reset_index()


def oracle_table(
    per_turn: pd.DataFrame,
    per_dialogue: pd.DataFrame,
    records: pd.DataFrame,
    cost: str = "latency_s",
    source: str = "records",
) -> pd.DataFrame:
    """``dialogue_id, baseline, quality, cost`` over the dialogues every baseline covers."""
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {tuple(COSTS)}, got {cost!r}")
    quality = joint_quality(per_turn, per_dialogue)
    costs = dialogue_costs(records, source=source, columns=[COSTS[cost]]).rename(columns={COSTS[cost]: "cost"})
    table = quality.merge(costs, on=["dialogue_id", "baseline"], how="inner")
    names = sorted(table["baseline"].unique())
    counts = table.groupby("dialogue_id")["baseline"].nunique()
    common = counts.index[counts == len(names)]
    return table[table["dialogue_id"].isin(common)].sort_values(["dialogue_id", "baseline"], ignore_index=True)
