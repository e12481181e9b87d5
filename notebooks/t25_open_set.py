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
closed_run = 'closed_llm'
tfidf_run = 'open_llm'
dense_run = 'open_llm_dense'
n_boot = 1000

# %% [markdown]
# # Table 25 — Open set and prefilter ablation (Finding 1b)
#
# LLM Zero-Shot and RAG-Citation on all same-city/type POIs, with a TF-IDF or a dense
# (MiniLM) top-k prefilter, beside their closed-set R@1.

# %%
from trace_crs import report

df = report.t25_open_set.load(results_dir, closed_run=closed_run, tfidf_run=tfidf_run, dense_run=dense_run)
report.results.write_table(df, results_dir, report.t25_open_set.NAME)
report.prose.glue_facts("t25", report.t25_open_set.facts(df))

# %% [markdown]
# LLM Zero-Shot goes from closed-set R@1 {glue:text}`t25_zs_closed:.3f` to
# {glue:text}`t25_zs_open_tfidf:.3f` with the TF-IDF prefilter and
# {glue:text}`t25_zs_open_dense:.3f` with the dense prefilter.

# %%
report.present.axes(df, caption="Table 25")

# %% [markdown]
# Each cell with its number of dialogues n and a 95 % dialogue-cluster bootstrap interval
# ("insufficient n" below {glue:text}`t25_min_clusters` dialogues or for a degenerate interval).

# %%
report.prose.glue_facts("t25", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.compare.intervals(df, results_dir, n_boot=n_boot, elsewhere={
    "recall@1_closed": ([closed_run], "recall@1"),
    "recall@1_tfidf": ([tfidf_run], "recall@1"), "recall@1_dense": ([dense_run], "recall@1"),
    "cd_tfidf": ([tfidf_run], "cd"), "cd_dense": ([dense_run], "cd"),
    "gs_tfidf": ([tfidf_run], "gs"), "gs_dense": ([dense_run], "gs")}))

# %%
report.t25_open_set.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, [closed_run, tfidf_run, dense_run])

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("t25_open_set", {"llm_calls": _llm_calls.note(results_dir, "t25_open_set")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`t25_open_set_llm_calls`
