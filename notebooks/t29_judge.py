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
# # Table 29 — LLM-as-judge
#
# Likert scores from the judge configured in each run's score step (`judge`, `judge_n` in
# `configs/<profile>/<run>.yaml`; its model is in the cost table below). Every baseline — the
# non-LLM rows of run `closed` and the LLM rows of `closed_llm` — is judged on the **same seeded
# turns**: `judge_n` dialogues drawn from the corpus exactly as `trace-crs evaluate --subset` draws
# them (so with `judge_n` equal to the LLM run's `subset` they are the dialogues the LLM baselines
# answered) and one recommend/compare turn of each. "Overall" is the mean of the five scales.
# Baselines whose run did not enable the judge show no value. The two-judge agreement check of
# Appendix T is the next chapter (Table 28).

# %%
from trace_crs import report

df = report.t29.load(results_dir, runs=runs)
ci = report.t29.intervals(results_dir, runs=runs, n_boot=n_boot)
cost = report.t29.costs(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t29.NAME)
report.results.write_table(ci, results_dir, report.t29.CI_NAME)
report.results.write_table(cost, results_dir, report.t29.COST_NAME)
report.prose.glue_facts("t29", report.t29.facts(df, ci, cost))

# %% [markdown]
# {glue:text}`t29_n_judged` of {glue:text}`t29_n_baselines` baselines were judged on this profile, on
# at most {glue:text}`t29_n_turns_max` turns each; {glue:text}`t29_n_sufficient` have enough
# dialogues (at least {glue:text}`t29_min_clusters`) for a bootstrap interval.
#
# Paper vs this run:

# %%
report.present.axes(df, caption="Table 29")

# %% [markdown]
# Every baseline with its judged turns and dialogues, and the mean with its dialogue-cluster
# bootstrap interval (percentile, as in the bootstrap chapter) per scale ("insufficient n": fewer dialogues than the minimum, no interval is
# claimed; "not judged": the run's score step had `judge: none`).

# %%
report.present.table(report.t29.display(ci))

# %%
report.t29.plot(df);

# %% [markdown]
# ## What the judge cost
#
# The judge's calls, tokens, dollars (same dated price table as the baselines; the local model is
# 0 $) and model seconds — {glue:text}`t29_judge_s:.1f` s and {glue:text}`t29_judge_tokens:.0f`
# tokens on this profile — beside each baseline's own run cost (`usd`, `wall_s`). A `NaN` in a
# dollar column means the model has no price in `stats/data/prices.yaml` (its tokens still count).

# %%
report.present.table(cost[["baseline", "usd", "wall_s", "judge_model", "judge_turns", "judge_calls", "judge_prompt_tokens",
      "judge_completion_tokens", "judge_usd", "judge_s", "total_usd", "total_s"]])

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("t29_judge", {"llm_calls": _llm_calls.note(results_dir, "t29_judge")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`t29_judge_llm_calls`
