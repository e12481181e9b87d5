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
# # Table 23 — Difficulty tiers (Appendix M)
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
report.present.axes(df, caption="Table 23")

# %% [markdown]
# The LLM rows rest on the seeded `closed_llm` subset: each tier's R@1 (over the dialogues of that
# tier) with its number of dialogues n and a 95 % dialogue-cluster bootstrap interval
# ({glue:text}`t23_min_clusters` dialogues at least; fewer, or an interval that collapses to a
# point, is marked "insufficient n").

# %%
report.prose.glue_facts("t23", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.t23_difficulty.intervals(results_dir, runs, n_boot=n_boot))

# %%
report.t23_difficulty.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
