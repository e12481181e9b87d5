"""Table 22 (Appendix L). CGS vs entailment-gated CGS: GS, entailment, CD, PC, CGS and CGS_ent of each run.

From the runs' score files (aggregates), beside the printed table; :func:`intervals` gives the
LLM rows' dialogue-cluster bootstrap intervals from the per-turn frames.  The notebook writes the
long reported-vs-reproduced frame to ``tables/t22_cgs_variants.csv``.
"""

from __future__ import annotations

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, paper, sensitivity
from trace_crs.stats.intervals import Derived, turn_mean

NAME = "t22_cgs_variants"  # notebook, module, table CSV and figure stem
PAPER = "table22_cgs_variants"  # the printed table it is compared with (report/paper/)
COLUMNS = metric_registry.columns(("gs", "entailment", "cd", "pc", "cgs", "cgs_ent"), paper.header(PAPER))
# The same numbers as statistics of a per-turn frame (the aggregates are means over turns).
CI_COLUMNS = {col: Derived(turn_mean(metric), needs=(metric,)) for col, metric in COLUMNS.items()}

load, plot = sensitivity.aggregates_table(NAME, PAPER, COLUMNS, "Table 22: this run vs paper")
intervals = compare.intervals_for(CI_COLUMNS, "each a mean over turns")
facts = sensitivity.comparison_facts
