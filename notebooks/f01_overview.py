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
# # Figure 1 — Overview: four gaps and three competencies
#
# The left panel of the paper's Figure 1 names four gaps of existing evaluations (§1); Trace
# answers them with three competencies that must hold together (§2): accuracy, grounding and
# recovery. The paper's figure is an illustration the text extraction does not carry, so this
# page draws what its caption and §1 describe from the project's own tables: the gaps and their
# mechanisms are the rows of Table 2, each competency lists the registry labels of the metrics
# that measure it, and a gap points at a competency when a metric Table 2 gives for the gap
# measures it. Spatial coherence and price alignment count towards accuracy, as the abstract's
# "multi-aspect preferences (such as cuisine, price, atmosphere, walking distance)" does; that
# reading is ours.

# %%
from trace_crs import report

df = report.f01_overview.load(results_dir)
report.results.write_table(df, results_dir, report.f01_overview.NAME)
report.prose.glue_facts("f01", report.f01_overview.facts(df))

# %%
report.f01_overview.plot(df);

# %%
report.present.table(df, caption="Figure 1 as a table")
