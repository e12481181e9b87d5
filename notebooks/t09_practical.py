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
# # Table 9 — Practical value
#
# Spatial coherence (share of recommended pairs within the walking threshold), price
# alignment, itinerary diversity and GS, closed set.

# %%
from trace_crs import report

df = report.t09_practical.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t09_practical.NAME)
report.prose.glue_facts("t09", report.t09_practical.facts(df))

# %% [markdown]
# The most spatially coherent baseline on this run is {glue:md}`t09_best_spatial_label`
# ({glue:text}`t09_best_spatial:.3f`; the paper prints {glue:text}`t09_itinerary_spatial_paper:.3f`
# for Itinerary, whose nearest-neighbour tour step produces it).
#
# Itinerary diversity (distinct POI types among the recommended POIs) reads "undefined" in our rows:
# every Trace candidate pool — closed, 16, 32 or open set — is one city × POI-type slice, so no
# baseline can mix types and the metric is undefined there (`metrics.practical`); the paper's
# value for Itinerary comes from plans that mix restaurants, hotels and attractions.

# %%
report.present.axes(df, caption="Table 9")

# %% [markdown]
# LLM rows, each cell with its number of dialogues n and a 95 % dialogue-cluster bootstrap
# interval ("insufficient n" below {glue:text}`t09_min_clusters` dialogues or for a degenerate interval).

# %%
report.prose.glue_facts("t09", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.compare.intervals(df, results_dir, n_boot=n_boot))

# %%
report.t09_practical.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
