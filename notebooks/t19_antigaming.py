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
# # Table 19 — Anti-gaming: citation density vs grounding (Appendix L)
#
# Does citing more buy grounding? Pearson r between citation density (CD) and grounding (GS)
# per baseline over its turns, with the means. Where GS or CD is the same on every turn of a
# baseline (a retriever that only quotes its reviews verbatim can have GS 1 throughout), r has no
# value: the cell reads "undefined" and the caption names the constant variable.

# %%
from trace_crs import report

df = report.t19_antigaming.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t19_antigaming.NAME)
report.prose.glue_facts("t19", report.t19_antigaming.facts(df))
report.present.axes(df, caption="Table 19")

# %% [markdown]
# The LLM rows rest on the seeded `closed_llm` subset: each cell (the means and Pearson r
# recomputed on every resample) with its number of dialogues n and a 95 % dialogue-cluster
# bootstrap interval ({glue:text}`t19_min_clusters` dialogues at least; fewer, or an interval that
# collapses to a point, is marked "insufficient n").

# %%
report.prose.glue_facts("t19", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.t19_antigaming.intervals(results_dir, runs, n_boot=n_boot))

# %% [markdown]
# Mean absolute difference to the printed r and means:
# {glue:text}`t19_mean_abs_diff:.3f` (the paper's signs were lost in extraction, see
# `report/paper/README.md`).

# %%
report.t19_antigaming.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
