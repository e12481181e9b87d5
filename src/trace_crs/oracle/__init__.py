"""Routing oracles over per-dialogue (quality, cost) tables (HotelQuEST §4 "Oracle models").

``budget_oracle`` solves the multiple-choice knapsack exactly (one baseline per dialogue,
Σ cost ≤ budget, maximise Σ quality); ``quality_oracle`` picks per dialogue the cheapest of the
top-quality baselines.  Both are in-sample upper bounds with perfect foresight, not routers.
"""

from trace_crs.oracle.curve import budget_curve, curve_bands, elbow
from trace_crs.oracle.knapsack import LABEL, OracleResult, budget_oracle, quality_oracle
from trace_crs.oracle.summary import oracle_summary
from trace_crs.oracle.table import OracleInstance, oracle_instance

__all__ = [
    "LABEL",
    "OracleInstance",
    "OracleResult",
    "budget_curve",
    "budget_oracle",
    "curve_bands",
    "elbow",
    "oracle_instance",
    "oracle_summary",
    "quality_oracle",
]
