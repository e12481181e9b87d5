"""Everything the oracle chapter reports about one instance, as one long frame
(HotelQuEST §4 "Oracle models" applied to Trace; ARCHITECTURE §6).

:func:`oracle_summary` solves the budget oracle over ``n_points`` budgets (exact
multiple-choice knapsack, :func:`~trace_crs.oracle.curve.budget_curve`) with bootstrap bands
(``n_boot`` resamples, ``seed``), finds its elbow, solves the quality oracle and adds each
baseline on its own.  Rows have ``kind`` ∈ {baseline, budget, quality_oracle, elbow}; columns
``budget, feasible, mean_quality, total_cost, mean_cost, ci_low, ci_high, solver, label`` and
``share:<baseline>`` (share of dialogues routed to each baseline).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from trace_crs import DEFAULT_SEED
from trace_crs.oracle.curve import budget_curve, curve_bands, default_budgets, elbow
from trace_crs.oracle.knapsack import LABEL, quality_oracle
from trace_crs.oracle.table import OracleInstance

FIRST = ["kind", "baseline", "budget", "feasible", "mean_quality", "total_cost", "mean_cost"]


def oracle_summary(
    inst: OracleInstance,
    n_points: int = 20,
    n_boot: int = 200,
    seed: int = DEFAULT_SEED,
    meta: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Single baselines, budget curve (with bands when ``n_boot``), quality oracle and elbow;
    ``meta`` (e.g. the cost column and runs) is carried as constant columns after ``n_dialogues``."""
    n = len(inst.dialogue_ids)
    curve, shares = budget_curve(inst, np.unique(default_budgets(inst, n_points)))  # equal costs: one budget
    wide = shares.pivot(index="budget", columns="baseline", values="share").add_prefix("share:")
    curve = curve.merge(wide, left_on="budget", right_index=True, how="left").assign(kind="budget")
    if n_boot:
        curve = curve.merge(
            curve_bands(inst, curve["budget"], n_boot, seed)[["budget", "ci_low", "ci_high"]], on="budget", how="left"
        )
    knee = elbow(curve["budget"], curve["mean_quality"])
    at_knee = curve[curve["budget"] == knee].assign(kind="elbow")
    qo = quality_oracle(inst)
    oracle_row = {
        "kind": "quality_oracle",
        "budget": qo.total_cost,
        "feasible": True,
        "mean_quality": qo.mean_quality,
        "total_cost": qo.total_cost,
        "solver": qo.solver,
        "label": LABEL,
        **qo.shares(inst).add_prefix("share:").to_dict(),
    }
    single = [
        {
            "kind": "baseline",
            "baseline": b,
            "mean_quality": float(inst.quality[:, j].mean()),
            "total_cost": float(inst.cost[:, j].sum()),
            "feasible": True,
        }
        for j, b in enumerate(inst.baselines)
    ]
    out = pd.concat([pd.DataFrame(single), curve, pd.DataFrame([oracle_row]), at_knee], ignore_index=True)
    out["mean_cost"] = out["total_cost"] / n
    out = out.assign(n_dialogues=n, **dict(meta or {}), n_boot=n_boot, seed=seed)
    return out[FIRST + [c for c in out.columns if c not in FIRST]]
