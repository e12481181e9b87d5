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
n_boot = 1000
seed = 42

# %% [markdown]
# # Deviations from the paper
#
# Every cell of Tables 5, 6 and 9 that has both a printed and a reproduced value, set against
# a 95 % dialogue-cluster bootstrap interval of our number. A cell *deviates* when the printed
# value lies outside our interval; it is *insufficient n* when the interval rests on too few
# dialogues (or collapses to a point) to decide anything, and *no interval* when the number is
# system-level (no per-turn or per-dialogue scores to resample).

# %%
from trace_crs import report

df = report.deviations.load(results_dir, n_boot=n_boot, seed=seed)
report.results.write_table(df, results_dir, report.deviations.NAME)
report.prose.glue_facts("dev", report.deviations.facts(df))

# %% [markdown]
# Of {glue:text}`dev_n_cells` compared cells, {glue:text}`dev_deviates` deviate beyond the
# interval, {glue:text}`dev_within_CI` agree within it, {glue:text}`dev_insufficient_n` rest on
# fewer than {glue:text}`dev_min_clusters` dialogues (no verdict) and
# {glue:text}`dev_no_interval` have no interval. Deviating cells without a known cause:
# {glue:text}`dev_unexplained`.

# %%
report.present.table(report.deviations.summary(df))

# %% [markdown]
# ## Deviating cells and their known causes
#
# Largest absolute difference first. Causes are read from
# `src/trace_crs/report/deviation_causes.yaml`; "unexplained" means we do not know why.

# %%
report.present.by(report.deviations.deviating(df), "cause")

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, sorted(set(df["run"].dropna())))
