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
# # Human evaluation (Tables 10–15)
#
# The paper calibrates its grounding metrics with an ALCE-style study (App. K): five trained
# annotators rate 90 responses (30 dialogues × TF-IDF / RAG-Citation / LLM Zero-Shot) — each
# quote Supported / Partial / Not supported, an 8-way error checklist, informativeness and
# naturalness on 1–5 — and write their own blind recommendation for 20 dialogues (Task 2).
# This chapter recomputes every table of that study from a labels file: Krippendorff's α with the
# `krippendorff` package (interval for the Likert scales, nominal for quote labels and for each
# error category as a present/absent unit), leave-one-out and leave-pair-out α, per-annotator
# behaviour, majority-vote citation precision Supp / (Supp + Part + NotS), Spearman and Kendall
# of GS / CGS / CD against the human ratings with item-bootstrap intervals, per-dialogue paired
# t-tests, and Task 2 Jaccard and strict-majority agreement.
#
# **Running a study.** Everything is in the compendium:
#
# 1. `trace-crs human sample --run results/<profile>/runs/closed --run results/<profile>/runs/closed_llm
#    --kb <kb> --dialogues <dialogues> --scores results/<profile>/scores/closed --scores
#    results/<profile>/scores/closed_llm --out items.jsonl --key-out key.jsonl` draws 30 dialogues
#    (seed 42) and writes blind items (System A/B/C, shuffled) and, separately, the key.
# 2. `trace-crs human serve --items items.jsonl --db labels.sqlite --annotators A1,A2,A3,A4,A5`
#    prints one private link per annotator (127.0.0.1 only unless `--host` says otherwise). Every
#    click is saved at once; reloading, closing the tab or restarting the server loses nothing.
# 3. `trace-crs human export --items items.jsonl --labels-db labels.sqlite --out labels.jsonl --csv labels.csv`
#    (incomplete labels are listed, never dropped silently), then
#    `make paper HUMAN_LABELS=labels.jsonl HUMAN_KEY=key.jsonl` fills this page.

# %%
from trace_crs.report import human_eval, present, prose

frames = human_eval.load(results_dir)
info = human_eval.summary(results_dir)
prose.glue_facts("human", human_eval.facts(frames) | {"status": human_eval.status(info)})

# %% [markdown]
# {glue:md}`human_status`
#
# ## Table 10 — Likert means and majority-vote citation check
#
# Per baseline: mean informativeness and naturalness over items (each item the mean of its
# annotators), the pooled majority labels of every quote and the pooled citation precision.

# %%
present.comparison(human_eval.table10(frames))

# %% [markdown]
# ## Agreement (§7.1) and Table 13b — leave-one-out and leave-pair-out α
#
# With {glue:text}`human_n_annotators` annotators on {glue:text}`human_n_items` items, α is
# {glue:md}`human_alpha_info_md` (informativeness), {glue:md}`human_alpha_nat_md` (naturalness),
# {glue:md}`human_alpha_cite_md` (quote labels) and {glue:md}`human_alpha_err_md` (error
# categories); their mean is {glue:md}`human_mean_alpha_md` (the paper: {glue:md}`human_paper_mean_alpha`).
# The paper's leave-out table follows,
# then ours (every single annotator and every pair dropped).

# %%
present.table(human_eval.paper_table("table13b_leave_out"), "Paper, Table 13b")

# %%
present.table(human_eval.frame(frames, "leave_one_out"), "Ours: one annotator dropped")

# %%
present.table(human_eval.frame(frames, "leave_pair_out"), "Ours: two annotators dropped")

# %% [markdown]
# ## Table 13 — annotator heterogeneity
#
# "Dev." is the mean absolute difference between an annotator's rating and the mean of the other
# annotators on the same item; the flag rate is the share of items with any error category checked
# and "avg. cats" the mean number checked.

# %%
present.table(human_eval.paper_table("table13_annotators"), "Paper, Table 13")

# %%
present.table(human_eval.frame(frames, "annotators"), "Ours")

# %% [markdown]
# ## Task 1 error categories (App. K.2)
#
# Share of items on which a strict majority of annotators checked each category.

# %%
present.table(human_eval.errors(frames), "Ours: strict-majority share per category")

# %% [markdown]
# ## Table 14 — metric–human correlation
#
# The paper's correlation values were lost in text extraction; ours are over items where both
# sides are defined (citation precision is undefined for a response that quotes nothing), with
# 95 % percentile intervals from resampling items.

# %%
present.table(human_eval.correlations(frames), "Ours: Spearman ρ and Kendall τ-b")

# %% [markdown]
# ## Table 15 — per-dialogue paired t-tests
#
# The paper printed the means (its t and p values were lost in extraction).

# %%
present.table(human_eval.paper_table("table15_paired_tests"), "Paper, Table 15 (means)")

# %%
present.table(human_eval.paired(frames), "Ours")

# %% [markdown]
# ## Task 2 — blind expert recommendations
#
# Mean pairwise Jaccard of the selected POI sets: {glue:md}`human_mean_jaccard_md` over
# {glue:text}`human_n_pairs` annotator pairs (the paper: {glue:md}`human_paper_jaccard`); a single POI
# was chosen by a strict majority in {glue:text}`human_n_strict_majority` of
# {glue:text}`human_n_task2_dialogues` dialogues (the paper: {glue:md}`human_paper_strict_majority`).
