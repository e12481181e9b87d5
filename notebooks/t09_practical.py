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

# %% [markdown]
# # Table 9 — Practical value
#
# Spatial coherence (share of recommended pairs within the walking threshold), price
# alignment, itinerary diversity and GS, closed set.

# %%
from trace_crs import report

df = report.t09.load(results_dir, runs=runs)
report.prose.glue_facts("t09", report.t09.facts(df))

# %% [markdown]
# The most spatially coherent baseline on this run is {glue:md}`t09_best_spatial_label`
# ({glue:text}`t09_best_spatial:.3f`; the paper prints {glue:text}`t09_itinerary_spatial_paper:.3f`
# for Itinerary, whose nearest-neighbour tour step produces it).

# %%
report.compare.wide(df)

# %%
report.t09.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
