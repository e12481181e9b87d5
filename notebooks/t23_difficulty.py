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
# # Table 23 — Difficulty tiers (Appendix L)
#
# R@1 of every baseline within each generation-time difficulty tier of the dialogues.

# %%
from trace_crs import report

df = report.t23_difficulty.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t23_difficulty.NAME)
report.prose.glue_facts("t23", report.t23_difficulty.facts(df))

# %% [markdown]
# Averaged over baselines, R@1 is {glue:text}`t23_mean_first:.3f` on the easy tier and
# {glue:text}`t23_mean_last:.3f` on the expert tier.

# %%
report.compare.wide(df)

# %%
report.t23_difficulty.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
