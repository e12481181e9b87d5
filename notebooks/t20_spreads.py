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
# # Table 20 — Per-turn standard deviations (Appendix L)
#
# Mean and standard deviation over system turns of BLEU-4, GS and CD for the session-isolated
# baselines on the closed set. The paper prints its turn count per baseline; every one of its
# standard deviations was lost in the text extraction, so its column shows "—". As the paper
# warns, turns of one dialogue are correlated and a per-turn SD understates uncertainty; to show
# by how much, each row adds the naive standard error, the dialogue-clustered standard error and
# their squared ratio (the design effect). These are descriptive: the book's intervals are the
# cluster bootstrap of Table 21.

# %%
from trace_crs import report

df = report.t20_spreads.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t20_spreads.NAME)
report.prose.glue_facts("t20", report.t20_spreads.facts(df))

# %% [markdown]
# {glue:text}`t20_n_baselines` baselines, {glue:text}`t20_n_turns_min` to
# {glue:text}`t20_n_turns_max` turns each. The largest design effect is
# {glue:text}`t20_deff_max:.2f` ({glue:md}`t20_deff_max_label`): a per-turn standard error
# would be that many times too small in variance.

# %%
report.present.by(report.t20_spreads.display(df), "metric", caption="Table 20")

# %%
report.t20_spreads.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)
