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
# # CoRE Fig. 5 — Agreement of the debaters, round by round
#
# CoRE (seed 001 §4.2, Fig. 5) merges the twelve factor ratings by a debate of four evaluators
# (Common User, a domain expert — a local travel expert here —, Linguist, HCI Expert) and chose
# its maximum of four rounds from this figure: the share of debates in which all four evaluators
# give the same 0–100 score (*All Agree*) and in which at least three do (*Major Agree*) after
# each round. Here the numbers come from the judge outputs already saved — every debate's chat
# records each evaluator's score per round — so this page makes no LLM call
# (`trace_crs/report/core_fig5_debate_agreement.py`). Our debate stops when the four agree, so a debate that
# stopped unanimous counts as agreeing in every later round (carried forward; the table says how
# many); one that reached its last round without unanimity has no later rounds; a failed debate
# is left out and counted. CoRE ran ten rounds on a 15% sample for this figure:
# `make judge-rounds` is that run (`--max-rounds 10`, not part of `make paper`: it needs an LLM
# for hours). Bands are Wilson 95% intervals over the debates of each round.

# %%
from trace_crs.report import core_fig5_debate_agreement, present, prose, results

df = core_fig5_debate_agreement.load(results_dir)
results.write_table(df, results_dir, core_fig5_debate_agreement.NAME)
prose.glue_facts("fig5", core_fig5_debate_agreement.facts(df))
from trace_crs.report import judge_validity

prose.glue_facts("fig5", {"validity": judge_validity.judge_note(results_dir, validated=False)})

# %% [markdown]
# {glue:md}`fig5_validity`

# %% [markdown]
# Debates counted: {glue:text}`fig5_n_debates` (source: {glue:md}`fig5_source`, up to
# {glue:text}`fig5_rounds` rounds; 0 means no debate finished on this profile — none was run, or
# every one failed — `make judge` or `make judge-rounds` writes them). Pooled over systems, All Agree goes from
# {glue:md}`fig5_all_first_md` after the first round to {glue:md}`fig5_all_last_md` after the
# last, Major Agree from {glue:md}`fig5_major_first_md` to {glue:md}`fig5_major_last_md`.

# %%
core_fig5_debate_agreement.plot(df);

# %%
present.table(df, "All Agree and Major Agree per round (Wilson 95% intervals)")

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("core_fig5_debate_agreement", {"llm_calls": _llm_calls.note(results_dir, "core_fig5_debate_agreement")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`core_fig5_debate_agreement_llm_calls`
