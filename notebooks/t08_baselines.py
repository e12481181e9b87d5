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

# %% [markdown]
# # Table 8 — Baseline catalogue (Appendix A)
#
# The paper's 14 baselines by group, capability, whether they call an LLM, their retrieval
# signal (S sparse, A aspect, D dense, G geographic, KB attributes, P persona) and whether they
# track dialogue state — each beside this compendium's registry entry: label, family, whether it
# calls a language model, the class it is built from, the first line of that class's docstring,
# whether it is session-isolated, and the runs of this profile that scored it. The right-hand
# columns are read from the registry and the score files when the page is built.

# %%
from trace_crs import report

df = report.t08_baselines.load(results_dir)
report.results.write_table(df, results_dir, report.t08_baselines.NAME)
report.prose.glue_facts("t08", report.t08_baselines.facts(df))

# %% [markdown]
# The registry holds {glue:text}`t08_n_registry` baselines ({glue:text}`t08_n_llm` calling a
# language model); the paper's catalogue lists {glue:text}`t08_n_paper`.

# %%
report.present.split(df, report.t08_baselines.GROUPS, caption="Table 8", first=report.t08_baselines.FIRST)
