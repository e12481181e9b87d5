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
# # Table 17 — Entailment vs fuzzy grounding (Appendix L)
#
# Fuzzy grounding (a quote matches a cited review) beside entailment grounding (a cited review
# entails the claim), and their gap, from each run's score files.

# %%
from trace_crs import report

df = report.t17_entailment_vs_fuzzy.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t17_entailment_vs_fuzzy.NAME)
report.prose.glue_facts("t17", report.t17_entailment_vs_fuzzy.facts(df))
report.present.axes(df, caption="Table 17")

# %% [markdown]
# Every row's columns come from one run (the provenance table below gives each run's dialogues; in the
# default profile the non-LLM rows are the seeded `closed_nli` subset, where entailment is scored).
# The LLM rows rest on the seeded `closed_llm` subset: each cell (the gap resampled with its two
# means) with its number of dialogues n and a 95 % dialogue-cluster bootstrap interval
# ({glue:text}`t17_min_clusters` dialogues at least; fewer, or an interval that collapses to a
# point, is marked "insufficient n").

# %%
report.prose.glue_facts("t17", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.t17_entailment_vs_fuzzy.intervals(results_dir, runs, n_boot=n_boot))

# %% [markdown]
# Over {glue:text}`t17_n_baselines` baselines the mean absolute difference to the
# printed scores is {glue:text}`t17_mean_abs_diff:.3f` (turn counts left out). Our
# entailment backend is the `nli` field of the provenance table, not the paper's DeBERTa.

# %%
report.t17_entailment_vs_fuzzy.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
