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
# # Table 16 — Fuzzy matching threshold (Appendix L)
#
# How much the grounding score moves with the fuzzy matching threshold (70 % / 80 % / 90 % /
# exact). The sweep re-scores a seeded sample of each run's dialogues through `trace_crs.metrics`
# (`trace-crs stats sensitivity fuzzy`; sample size and seed in `mk/sensitivity.mk`); the rank
# correlation comes from `trace_crs.stats`. This page reads the saved sweep.

# %%
from trace_crs import report

df = report.t16_fuzzy_threshold.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t16_fuzzy_threshold.NAME)
report.prose.glue_facts("t16", report.t16_fuzzy_threshold.facts(df))

# %% [markdown]
# Across the thresholds, the largest change of one baseline's GS is
# {glue:md}`t16_max_spread_md` and the lowest Spearman ρ of the baseline ranking against
# the default (80 %) is {glue:md}`t16_min_rank_rho_md` ({glue:text}`t16_n_baselines`
# baselines; not computed when the baselines tie at the default).

# %%
report.present.axes(df, caption="Table 16")

# %%
report.t16_fuzzy_threshold.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
