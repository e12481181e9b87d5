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
pool_runs = [[8, 'closed'], [16, 'pool16'], [32, 'pool32']]

# %% [markdown]
# # Table 24 — Candidate pool size (Appendix P)
#
# R@1, R@3 and GS as the candidate pool grows from the closed pool to the expanded pools.

# %%
from trace_crs import report

df = report.t24_pool_size.load(results_dir, pool_runs=pool_runs)
report.results.write_table(df, results_dir, report.t24_pool_size.NAME)
report.prose.glue_facts("t24", report.t24_pool_size.facts(df))

# %% [markdown]
# Averaged over baselines, R@1 falls from {glue:text}`t24_mean_first:.3f`
# ({glue:md}`t24_first`) to {glue:text}`t24_mean_last:.3f` ({glue:md}`t24_last`).

# %%
report.present.axes(df, caption="Table 24")

# %%
report.t24_pool_size.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, [run for _, run in pool_runs])
