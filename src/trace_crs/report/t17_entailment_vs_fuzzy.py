"""Table 17 (Appendix L). Entailment vs fuzzy grounding: each run's fuzzy GS and entailment GS with Gap = GS − Entail.

From the runs' score files (aggregates; Gap = GS − Entail), beside the printed table;
:func:`intervals` gives the LLM rows' dialogue-cluster bootstrap intervals from the per-turn
frames.  The notebook writes the long reported-vs-reproduced frame to
``tables/t17_entailment_vs_fuzzy.csv``.
"""

from __future__ import annotations

from trace_crs.metrics import registry as metric_registry
from trace_crs.report import compare, paper, sensitivity
from trace_crs.stats.intervals import Derived, turn_mean

NAME = "t17_entailment_vs_fuzzy"  # notebook, module, table CSV and figure stem
PAPER = "table17_entailment_vs_fuzzy"  # the printed table it is compared with (report/paper/)
_PRINTED = metric_registry.columns(("gs", "entailment"), paper.header(PAPER))  # Table 17's spellings
COLUMNS = {"n_turns": "n_turns", **_PRINTED, "Gap": "gap"}
# The same numbers as statistics of a per-turn frame (the aggregates are means over turns).
CI_COLUMNS = {
    **{col: Derived(turn_mean(key), needs=(key,)) for col, key in _PRINTED.items()},
    "Gap": Derived(lambda f: turn_mean("gs")(f) - turn_mean("entailment")(f), needs=("gs", "entailment")),
}

load, plot = sensitivity.aggregates_table(NAME, PAPER, COLUMNS, "Table 17: this run vs paper")
intervals = compare.intervals_for(CI_COLUMNS, "Gap: mean GS − mean entailment over the same resampled dialogues")
facts = sensitivity.comparison_facts
