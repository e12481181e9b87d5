# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters", "remove-cell"]
results_dir = 'results/default'

# %% [markdown]
# # Table 2 — Gap, mechanism and metric
#
# Each gap of existing evaluations (§1), the construction mechanism that addresses it (§2) and
# the metric that measures it (§3), as printed; beside them, the metrics of this compendium's
# registry that measure the gap (their labels as every table shows them), the modules that build
# the mechanism and the pages that report it. Every name is checked when the page is built, so a
# renamed metric or a moved page fails the build instead of leaving a stale row. The paper's
# "Preference Coverage" has no metric of that name; Price Alignment and Provenance Coverage (PC)
# are the registry's nearest, and that choice is ours.

# %%
from trace_crs import report

df = report.t02_gap_map.load(results_dir)
report.results.write_table(df, results_dir, report.t02_gap_map.NAME)
report.prose.glue_facts("t02", report.t02_gap_map.facts(df))

# %%
report.present.table(df, caption="Table 2")
