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
# # Table 5 — Closed-set headline
#
# Accuracy, text overlap, grounding (CGS, citation density) and dialogue success for every
# baseline on the closed candidate pool: the paper's printed value, ours, and ours minus paper.
# Non-LLM rows come from the `closed` run, LLM rows from the seeded `closed_llm` subset.

# %%
from trace_crs import report

df = report.t05_headline.load(results_dir, runs=runs)
report.results.write_table(df, results_dir, report.t05_headline.NAME)
report.prose.glue_facts("t05", report.t05_headline.facts(df))

# %% [markdown]
# On this run {glue:text}`t05_n_baselines` baselines were scored. The most accurate is
# {glue:md}`t05_best_r1_label` with R@1 {glue:text}`t05_best_r1:.3f` (paper:
# {glue:text}`t05_best_r1_paper:.3f`). Mean absolute difference to the paper:
# {glue:text}`t05_mean_abs_diff_r1:.3f` on R@1 and {glue:text}`t05_mean_abs_diff_cgs:.3f` on CGS.
# Our KB, dialogues and local LM differ from the paper's, so the comparison is about the
# pattern across baselines, not the values. The ordering of the non-LLM rows by R@1 agrees
# with the paper's at Kendall τ_b = {glue:text}`t05_tau_r1_non_llm:.2f` (two-sided p =
# {glue:text}`t05_tau_r1_non_llm_p:.3f`, n = {glue:text}`t05_tau_r1_non_llm_n` baselines);
# on grounding, CGS orders them at τ_b = {glue:md}`t05_tau_cgs_non_llm_md` (p =
# {glue:md}`t05_tau_cgs_non_llm_p_md`) and CiteDensity at τ_b = {glue:md}`t05_tau_cd_non_llm_md`
# (p = {glue:md}`t05_tau_cd_non_llm_p_md`; "not computed" when a column is constant or has
# fewer than two rows). The table below gives τ_b for every column; cells outside our
# confidence intervals are listed on the Deviations page.

# %%
report.present.table(report.t05_headline.ordering_table(df), "Ordering agreement of the non-LLM rows with the paper (Kendall τ_b)")

# %%
report.present.axes(df, report.t05_headline.AXES, "Table 5")

# %% [markdown]
# The LLM rows rest on the seeded `closed_llm` subset: each cell with its number of dialogues n and a
# 95 % dialogue-cluster bootstrap interval ({glue:text}`t05_min_clusters` dialogues at least;
# fewer, or an interval that collapses to a point, is marked "insufficient n").

# %%
report.prose.glue_facts("t05", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.split(report.compare.intervals(df, results_dir, n_boot=n_boot), report.t05_headline.AXES,
                     "95 % interval")

# %%
report.t05_headline.plot(df);

# %% [markdown]
# ## What the responses are made of (Appendix L)
#
# Every sentence of the responses in this run, classified as quote, framing, rating-meta or
# other claim (`trace_crs.metrics.sentence_categories`), in %, beside the paper's composition.
# Template responses that put a citation next to every claim would make grounding metrics
# trivially high; the paper's TF-IDF responses are mostly quotes with a share of framing and
# rating-meta sentences that no review can support.

# %%
report.present.table(report.t05_headline.composition(results_dir, run=runs[0]).pivot(
    index="Baseline", columns="category", values=["paper", "ours"]), "Sentence categories, % of sentences")

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, runs)

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("t05_headline", {"llm_calls": _llm_calls.note(results_dir, "t05_headline")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`t05_headline_llm_calls`
