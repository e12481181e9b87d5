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
# # Table 29 — LLM-as-judge
#
# Likert scores from the judge configured in each run's score step (its model is listed below);
# baselines whose run did not enable the judge show no value.

# %%
from trace_crs import report

df = report.t29.load(results_dir, runs=runs)
report.prose.glue_facts("t29", report.t29.facts(df))

# %% [markdown]
# {glue:text}`t29_n_judged` baselines were judged on this profile.

# %%
report.compare.wide(df)

# %%
report.t29.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
