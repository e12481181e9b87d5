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
runs = ['closed', 'closed_llm']
n_boot = 1000

# %% [markdown]
# # Table 27 — Multi-reference recall (Finding 1c)
#
# Single-reference R@1 against multi-reference R@1, which also accepts the other candidates
# that satisfy every stated preference, over all turns and over turns that have such an
# alternative.

# %%
from trace_crs import report

df = report.t27_multi_reference.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t27_multi_reference.NAME)
report.prose.glue_facts("t27", report.t27_multi_reference.facts(df))

# %% [markdown]
# Multi-reference gold lifts R@1 by {glue:text}`t27_lift_min_pp:.1f` to
# {glue:text}`t27_lift_max_pp:.1f` percentage points across {glue:text}`t27_n_baselines` baselines.

# %%
report.present.axes(df, caption="Table 27")

# %% [markdown]
# The LLM rows rest on the seeded `closed_llm` subset: each cell (the alternative-only columns
# over the dialogues with an alternative) with its number of dialogues n and a 95 %
# dialogue-cluster bootstrap interval ({glue:text}`t27_min_clusters` dialogues at least; fewer, or
# an interval that collapses to a point, is marked "insufficient n").

# %%
report.prose.glue_facts("t27", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.t27_multi_reference.intervals(results_dir, runs, n_boot=n_boot))

# %%
report.t27_multi_reference.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
