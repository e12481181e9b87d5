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
runs = ['closed', 'closed_llm']

# %% [markdown]
# # Tables 23–24 — Pool size and difficulty
#
# R@1, R@3 and GS as the candidate pool grows from the closed pool to the expanded pools
# (Table 24), and R@1 by generation-time difficulty tier (Table 23).

# %%
from trace_crs import report

df = report.t24.load(results_dir, part="pool", pool_runs=pool_runs)
report.prose.glue_facts("t24", report.t24.facts(df))

# %% [markdown]
# Averaged over baselines, R@1 falls from {glue:text}`t24_mean_first:.3f`
# ({glue:md}`t24_first`) to {glue:text}`t24_mean_last:.3f` ({glue:md}`t24_last`).

# %%
report.compare.wide(df)

# %%
report.t24.plot(df);

# %% [markdown]
# ## By difficulty tier (Table 23)

# %%
by_tier = report.t24.load(results_dir, part="difficulty", runs=runs)
report.compare.wide(by_tier)

# %%
report.t24.plot(by_tier);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, [run for _, run in pool_runs])
