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
# # Grounding metric independence (Appendix L)
#
# Do GS, CD and PC measure different things? Spearman ρ between them over the pooled turns
# of the non-LLM baselines.

# %%
from trace_crs import report

df = report.grounding_independence.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.grounding_independence.NAME)
report.prose.glue_facts("independence", report.grounding_independence.facts(df))
report.present.table(df)

# %% [markdown]
# Over {glue:text}`independence_n_turns` pooled turns of the non-LLM baselines, the largest
# |Spearman ρ| between GS, CD and PC is {glue:text}`independence_max_abs_rho:.3f`.

# %%
report.grounding_independence.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
