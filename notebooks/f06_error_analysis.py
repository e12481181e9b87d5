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
# # Figure 6 — Error analysis (Appendix O)
#
# Share of recommend/compare turns with a grounding error (some quote fails the fuzzy match
# against its cited review), a recommendation error (the top-1 POI is not gold) and a relevance
# error (a preference the user stated is not addressed), per baseline. The flags come from
# `trace_crs.metrics.errors` applied to each run's predictions on a seeded sample of its
# dialogues (`trace-crs stats sensitivity errors`; sample size, seed and fuzzy threshold in
# `mk/sensitivity.mk`); the paper prints only some of the rates, in its prose.

# %%
from trace_crs.report import f06_error_analysis, present, prose, provenance, results

df = f06_error_analysis.load(results_dir, runs=runs)
results.write_table(df, results_dir, f06_error_analysis.NAME)
prose.glue_facts("f06", f06_error_analysis.facts(df))

# %% [markdown]
# Over {glue:text}`f06_n_turns` turns of {glue:text}`f06_n_baselines` baselines, the highest
# grounding error rate is {glue:md}`f06_worst_grounding_label`'s ({glue:text}`f06_worst_grounding:.3f`),
# the highest recommendation error rate {glue:md}`f06_worst_recommendation_label`'s
# ({glue:text}`f06_worst_recommendation:.3f`) and the highest relevance error rate
# {glue:md}`f06_worst_relevance_label`'s ({glue:text}`f06_worst_relevance:.3f`). Mean grounding
# error: {glue:md}`f06_mean_grounding_non_llm_md` for the non-LLM baselines and
# {glue:md}`f06_mean_grounding_llm_md` for the LLM baselines ("not computed" when none was run).

# %%
present.table(df.pivot(index="Baseline", columns="column", values=["ours", "paper"]))

# %%
f06_error_analysis.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
provenance.section(results_dir, runs)
