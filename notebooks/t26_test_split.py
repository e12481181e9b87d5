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
splits_dir = 'data/dialogues/default/dialogues.splits'
run = 'closed'
split = 'test'

# %% [markdown]
# # Table 26 — Official test split
#
# The non-LLM closed-set run re-aggregated on the dialogues of the official test split.

# %%
from trace_crs import report

df = report.t26_test_split.load(results_dir, splits_dir=splits_dir, run=run, split=split)
report.results.write_table(df, results_dir, report.t26_test_split.NAME)
report.prose.glue_facts("t26", report.t26_test_split.facts(df))

# %% [markdown]
# The test split holds {glue:text}`t26_n_dialogues` dialogues ({glue:text}`t26_n_turns`
# scored turns per baseline); mean absolute difference to the paper:
# {glue:text}`t26_mean_abs_diff:.3f`.

# %%
report.present.axes(df, caption="Table 26")

# %%
report.t26_test_split.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, [run])
