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
run = 'closed'
judges = ['likert_a', 'likert_b']

# %% [markdown]
# # Table 28 — cross-judge agreement
#
# Is the Likert judge of Table 29 a single-judge artifact? As in Appendix T, two judges re-score
# the run's non-LLM baselines on the same seeded turns, each with the five-scale Likert judge; a
# baseline's score is its mean "Overall" (mean of the five scales). The agreement is Kendall τ and
# Spearman ρ between the two judges' per-baseline means, computed the same way from the paper's
# printed GPT-4o and Claude means. Judge A stands in the GPT-4o column and judge B in Claude's;
# `make judge-likert` runs them (by default the local model and a second, smaller local model —
# any litellm model can be either judge: `make judge-likert T28_B=openai/<model>`).
#
# This table is about the paper's instrument, a Likert score per response. The CoRE chapter's
# "Table 28: two judges" ranks the same baselines by CoRE-Avg over whole conversations, a
# different instrument with its own file; the two are not interchangeable.

# %%
from trace_crs.report import prose, results, t28_cross_judge

df = t28_cross_judge.load(results_dir, run=run, judges=judges)
results.write_table(df, results_dir, t28_cross_judge.NAME)
prose.glue_facts("t28", t28_cross_judge.facts(df) | {"status": t28_cross_judge.status(results_dir, run, judges)})

# %% [markdown]
# {glue:md}`t28_status`
#
# Per baseline, each judge's mean (`ours`) beside the paper's (`paper`); `diff` compares across
# judges of different models, so only the rankings are comparable.

# %%
from trace_crs.report import present

present.axes(df, caption="Table 28")

# %% [markdown]
# Ranking agreement between the two judges over {glue:text}`t28_n_ours` baselines: Kendall τ
# {glue:md}`t28_tau_ours_md`, Spearman ρ {glue:md}`t28_rho_ours_md` (the paper's printed
# means give τ {glue:md}`t28_tau_paper_md`, ρ {glue:md}`t28_rho_paper_md`). Judge A scores
# {glue:md}`t28_gap_ours_md` points higher than judge B on average — a calibration difference,
# which rank agreement ignores. "Not computed": a judge has no outputs on this profile, or it gave every baseline the same mean.

# %%
present.table(t28_cross_judge.agreement_table(df))

# %%
t28_cross_judge.plot(df);

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("t28_cross_judge", {"llm_calls": _llm_calls.note(results_dir, "t28_cross_judge")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`t28_cross_judge_llm_calls`
