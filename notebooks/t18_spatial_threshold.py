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
# # Table 18 — Spatial coherence threshold (Appendix L)
#
# Spatial coherence when the distance that counts as "close" is 1, 1.5, 2, 3 or 5 km: every
# run re-scored on a seeded sample of its dialogues (`trace-crs stats sensitivity spatial`;
# sample size and seed in `mk/sensitivity.mk`). This page reads the saved sweep.

# %%
from trace_crs import report

df = report.t18_spatial_threshold.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t18_spatial_threshold.NAME)
report.prose.glue_facts("t18", report.t18_spatial_threshold.facts(df))

# %% [markdown]
# Mean spatial coherence rises from {glue:text}`t18_mean_first:.3f` at 1 km to
# {glue:text}`t18_mean_last:.3f` at 5 km; the lowest Spearman ρ of the ranking against
# the 2 km default is {glue:md}`t18_min_rank_rho_md`.

# %%
report.present.axes(df, caption="Table 18")

# %%
report.t18_spatial_threshold.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
