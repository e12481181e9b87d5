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
human_labels = None

# %% [markdown]
# # CoRE Fig. 9 — Do the twelve factors rank the systems alike?
#
# CoRE (seed 001 §7.1.2, Fig. 9) asks, for each evaluator, whether two factors put the systems
# in the same order: Kendall's τ_b, in percent, between the system rankings of every pair of the
# twelve factors (100: the same order; −100: reversed). A system's score on a factor is its mean
# rating (0–4) over the transcripts the evaluator judged; τ_b is scipy's `kendalltau`
# (`trace_crs/report/core_fig9_factor_tau.py`). One matrix per evaluator whose judge output exists — judge A
# and judge B on the replayed transcripts (`make judge`), judge A on the live conversations
# (`make judge-live`, part of `make paper`) — and, given `human_labels` (CoRE factor ratings with
# each line's `system`), the human matrix first. A cell is "—" when fewer than two systems were
# rated on both factors or a factor gave every system the same mean. With few systems τ_b takes
# few values (two systems: ±100 only), so read a matrix together with its number of systems.

# %%
from trace_crs.report import core_fig9_factor_tau, present, prose, results

df = core_fig9_factor_tau.load(results_dir, human=human_labels)
results.write_table(df, results_dir, core_fig9_factor_tau.NAME)
prose.glue_facts("fig9", core_fig9_factor_tau.facts(df))
from trace_crs.report import judge_validity

prose.glue_facts("fig9", {"validity": judge_validity.judge_note(results_dir)})

# %% [markdown]
# {glue:md}`fig9_validity`

# %% [markdown]
# Evaluators shown: {glue:text}`fig9_n_evaluators` (0: no judge rated any system on this
# profile); each cell rests on {glue:text}`fig9_min_systems` to {glue:text}`fig9_max_systems`
# systems. Mean τ_b over the off-diagonal cells, averaged over evaluators:
# {glue:md}`fig9_mean_tau_md`.

# %%
core_fig9_factor_tau.plot(df);

# %%
present.folded(present.table(df[df["factor_a"] < df["factor_b"]], "Kendall's τ_b (%) per factor pair and evaluator"),
               "Every factor pair as a table (click to open)")

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("core_fig9_factor_tau", {"llm_calls": _llm_calls.note(results_dir, "core_fig9_factor_tau")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`core_fig9_factor_tau_llm_calls`
