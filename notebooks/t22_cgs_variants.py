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
# # Table 22 — CGS vs entailment-gated CGS (Appendix L)
#
# The composite grounding score beside its entailment-gated twin, then the alternative CGS
# formulas: does the ranking of the baselines depend on how CGS combines GS, CD and PC?

# %%
from trace_crs import report

df = report.t22_cgs_variants.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t22_cgs_variants.NAME)
report.prose.glue_facts("t22", report.t22_cgs_variants.facts(df))
report.present.axes(df, caption="Table 22")

# %% [markdown]
# Every row's columns come from one run (the provenance table below gives each run's dialogues; in the
# default profile the non-LLM rows are the seeded `closed_nli` subset, where entailment is scored).
# The LLM rows rest on the seeded `closed_llm` subset: each cell with its number of dialogues n
# and a 95 % dialogue-cluster bootstrap interval ({glue:text}`t22_min_clusters` dialogues at
# least; fewer, or an interval that collapses to a point, is marked "insufficient n").

# %%
report.prose.glue_facts("t22", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.t22_cgs_variants.intervals(results_dir, runs, n_boot=n_boot))

# %% [markdown]
# Over {glue:text}`t22_n_baselines` baselines the mean absolute difference to the printed
# scores is {glue:text}`t22_mean_abs_diff:.3f`.

# %%
report.t22_cgs_variants.plot(df);

# %% [markdown]
# ## Alternative CGS formulas

# %%
variants = report.cgs_formula_variants.load(results_dir, runs=runs)
report.results.write_table(variants, results_dir, report.cgs_formula_variants.NAME)
report.prose.glue_facts("variants", report.cgs_formula_variants.facts(variants))
report.present.table(variants.pivot(index="baseline", columns="variant", values="value"))

# %% [markdown]
# The {glue:text}`variants_n_variants` alternative formulas rank the baselines with Spearman ρ
# between {glue:text}`variants_min_rho:.3f` and {glue:text}`variants_max_rho:.3f` against
# the default CGS (paper: {glue:md}`variants_paper_range`).

# %%
report.cgs_formula_variants.plot(variants);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
