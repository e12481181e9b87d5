"""CGS formula sensitivity (paper Appendix L, "CGS formula sensitivity").

Default CGS = GS × 1[CD ≥ 0.05] × max(PC, 0.5) per turn (``metrics.grounding.composite``).
Our reading of the seven alternatives the paper lists (its "eight" counts the default):

* ``cd_gate_0.03`` / ``cd_gate_0.10`` — the CD gate at 0.03 / 0.10;
* ``no_pc_floor`` — PC in place of max(PC, 0.5);
* ``sqrt_pc`` — √PC in place of max(PC, 0.5);
* ``geometric`` — cube root of the default product of the three factors;
* ``harmonic`` — harmonic mean of GS, the CD gate and max(PC, 0.5) (0 if any factor is 0);
* ``additive`` — arithmetic mean of the same three factors.

:func:`cgs_variant_sensitivity` averages each variant over a baseline's turns and reports the
Spearman ρ of the baselines' values against the default ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from trace_crs.config import ScoreConfig
from trace_crs.metrics.grounding import composite
from trace_crs.stats.frames import require_columns, require_finite

Variant = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _factors(gs: np.ndarray, cd: np.ndarray, pc: np.ndarray) -> np.ndarray:
    return np.vstack([gs, (cd >= ScoreConfig.cd_gate).astype(float), np.maximum(pc, ScoreConfig.pc_floor)])


def _harmonic(gs: np.ndarray, cd: np.ndarray, pc: np.ndarray) -> np.ndarray:
    f = _factors(gs, cd, pc)
    with np.errstate(divide="ignore"):
        h = 3 / (1 / f).sum(axis=0)
    return np.where((f == 0).any(axis=0), 0.0, h)


CGS_VARIANTS: dict[str, Variant] = {
    "default": lambda gs, cd, pc: composite(gs, cd, pc),
    "cd_gate_0.03": lambda gs, cd, pc: composite(gs, cd, pc, cd_gate=0.03),
    "cd_gate_0.10": lambda gs, cd, pc: composite(gs, cd, pc, cd_gate=0.10),
    "no_pc_floor": lambda gs, cd, pc: composite(gs, cd, pc, pc_floor=0.0),
    "sqrt_pc": lambda gs, cd, pc: composite(gs, cd, np.sqrt(pc), pc_floor=0.0),
    "geometric": lambda gs, cd, pc: np.cbrt(composite(gs, cd, pc)),
    "harmonic": _harmonic,
    "additive": lambda gs, cd, pc: _factors(gs, cd, pc).mean(axis=0),
}


def cgs_variant_sensitivity(
    per_turn: pd.DataFrame, variants: Mapping[str, Variant] = CGS_VARIANTS, source: str = "per-turn scores"
) -> pd.DataFrame:
    """``variant, baseline, value, n_turns, spearman_vs_default`` (variants must include "default")."""
    if "default" not in variants:
        raise ValueError("cgs variants: a 'default' variant is required as the reference ranking")
    require_columns(per_turn, ["baseline", "gs", "cd", "pc"], source)
    for col in ("gs", "cd", "pc"):
        require_finite(per_turn, col, source)
    gs, cd, pc = (per_turn[c].to_numpy(float) for c in ("gs", "cd", "pc"))
    means = {
        name: pd.Series(fn(gs, cd, pc), index=per_turn.index).groupby(per_turn["baseline"]).mean().sort_index()
        for name, fn in variants.items()
    }
    counts = per_turn.groupby("baseline").size().sort_index()
    ref = means["default"].to_numpy(float)
    rows: list[dict[str, object]] = []
    for name, m in means.items():
        v = m.to_numpy(float)
        rho = float(stats.spearmanr(v, ref)[0]) if v.size > 1 and np.ptp(v) > 0 and np.ptp(ref) > 0 else np.nan
        rows.extend(
            {
                "variant": name,
                "baseline": b,
                "value": float(m[b]),
                "n_turns": int(counts[b]),
                "spearman_vs_default": rho,
            }
            for b in m.index
        )
    return pd.DataFrame(rows)
