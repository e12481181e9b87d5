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
subset_run = 'closed_llm'
pairs = None
n_boot = 1000
seed = 42

# %% [markdown]
# # Table 21 — Paired cluster bootstrap
#
# Differences between baseline pairs, resampling dialogues (clusters) with replacement on the
# dialogues of the LLM subset, with percentile intervals. The paper printed only Δ
# (intervals and significance were lost in text extraction, and some signs may be lost).

# %%
from trace_crs import report

df = report.t21_bootstrap.load(results_dir, runs=runs, subset_run=subset_run, pairs=pairs, n_boot=n_boot, seed=seed)
report.results.write_table(df, results_dir, report.t21_bootstrap.NAME)
report.prose.glue_facts("t21", report.t21_bootstrap.facts(df))

# %% [markdown]
# With {glue:text}`t21_B` resamples over {glue:text}`t21_n_dialogues` dialogues,
# {glue:text}`t21_n_significant` of {glue:text}`t21_n_pairs` differences have an interval that
# excludes zero. A bootstrap over fewer than {glue:text}`t21_min_clusters` dialogues, or one
# whose interval collapses to a point, is not evidence either way:
# {glue:text}`t21_n_insufficient` pairs are marked "insufficient n" (no p-value) in the
# `verdict` column.

# %%
report.present.table(df)

# %%
report.t21_bootstrap.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
