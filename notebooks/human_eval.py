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
# How to run your own study — sample, serve, export, agree — is at the end of this page, with
# screenshots of the two tasks.

# %%
from trace_crs.report import human_eval, present, prose, results

frames = human_eval.load(results_dir)
info = human_eval.summary(results_dir)
table10 = human_eval.table10(frames)
results.write_table(table10, results_dir, human_eval.NAME)
prose.glue_facts("human", human_eval.facts(frames) | {"status": human_eval.status(info)})

# %% [markdown]
# {glue:md}`human_status`
#
# ## Table 10 — Likert means and majority-vote citation check
#
# Per baseline: mean informativeness and naturalness over items (each item the mean of its
# annotators), the pooled majority labels of every quote and the pooled citation precision.

# %%
present.axes(table10, human_eval.TABLE10_AXES)

# %% [markdown]
# ## Agreement (§7.1), Table 12 and Table 13 — leave-one-out and leave-pair-out α
#
# With {glue:text}`human_n_annotators` annotators on {glue:text}`human_n_items` items, α is
# {glue:md}`human_alpha_info_md` (informativeness), {glue:md}`human_alpha_nat_md` (naturalness),
# {glue:md}`human_alpha_cite_md` (quote labels) and {glue:md}`human_alpha_err_md` (error
# categories); their mean is {glue:md}`human_mean_alpha_md` (the paper: {glue:md}`human_paper_mean_alpha`).
# The paper's leave-one-out (Table 12) and leave-pair-out (Table 13) tables follow, each before
# ours (its relative-change column was lost in text extraction; the paper prints the five pairs
# it chose, we drop every pair). The extraction carries no number for these two tables or for
# Table 11; the numbers are those the paper's order implies.

# %%
present.table(human_eval.paper_leave_out("single"), "Paper, Table 12")

# %%
present.table(human_eval.frame(frames, "leave_one_out"), "Ours: one annotator dropped")

# %%
present.table(human_eval.paper_leave_out("pair"), "Paper, Table 13")

# %%
present.table(human_eval.frame(frames, "leave_pair_out"), "Ours: two annotators dropped")

# %% [markdown]
# ## Table 11 — annotator heterogeneity
#
# "Dev." is the mean absolute difference between an annotator's rating and the mean of the other
# annotators on the same item; the flag rate is the percentage of items with any error category checked
# and "avg. cats" the mean number checked.

# %%
present.table(human_eval.paper_table("table13_annotators"), "Paper, Table 11")

# %%
present.table(human_eval.frame(frames, "annotators"), "Ours")

# %% [markdown]
# ## Task 1 error categories (App. K.2)
#
# Percentage of items on which a strict majority of annotators checked each category, beside the
# shares the paper prints for five of them (its counting rule is not stated; "No errors" is its
# "judged error-free").

# %%
present.table(human_eval.errors(frames), "Error categories, % of items", digits=1)

# %% [markdown]
# ## Table 14 — metric–human correlation
#
# The paper's correlation values were lost in text extraction, but §7.1 and App. K.3 say in words
# what five of its cells are: GS, CGS and CD correlate positively with human citation precision,
# GS most and CD least, and GS and CD negatively with informativeness. That is the paper column;
# "sign agrees" compares our sign with it where our interval excludes zero. Ours are over items where both sides are defined
# (citation precision is undefined for a response that quotes nothing), with 95 % percentile
# intervals from resampling items.

# %%
present.table(human_eval.correlations(frames), "Table 14: Spearman ρ and Kendall τ-b, paper (in words) and ours")

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

# %% [markdown]
# ## How to run your own study
#
# Four commands, then a rebuild; `study/` stands for any directory you choose. Keep the key file
# away from annotators: it says which system wrote which response.
#
# 1. **Sample** 30 dialogues (seed 42) answered by all three systems, as blind Task 1 items
#    (System A/B/C, letters permuted per dialogue, order shuffled) and Task 2 items for the first
#    20 of them (`--n-task2` may not exceed `--n`: exit code 2). The key goes to its own file.
#
#    ```
#    trace-crs human sample \
#      --run results/default/runs/closed \
#      --run results/default/runs/closed_llm \
#      --kb data/kb/default \
#      --dialogues data/dialogues/default/dialogues.jsonl \
#      --scores results/default/scores/closed \
#      --scores results/default/scores/closed_llm \
#      --n 30 --n-task2 20 --seed 42 \
#      --out study/items.jsonl --key-out study/key.jsonl
#    ```
#
# 2. **Serve** the annotation tool (FastAPI + SQLite, 127.0.0.1 unless `--host` says otherwise).
#    It prints one private link per annotator; every click is saved at once, so a reload, a
#    closed tab or a restarted server loses nothing, and each annotator sees only their own labels.
#
#    ```
#    trace-crs human serve --items study/items.jsonl \
#      --db study/labels.sqlite --annotators A1,A2,A3,A4,A5
#    ```
#
# 3. **Export** the complete labels as JSON lines (and CSV); incomplete ones are listed on stderr,
#    never dropped silently.
#
#    ```
#    trace-crs human export --items study/items.jsonl \
#      --labels-db study/labels.sqlite \
#      --out study/labels.jsonl --csv study/labels.csv
#    ```
#
# 4. **Agree**: every table of this page from the labels (α, leave-out, annotators, Table 10,
#    correlations, paired tests, Task 2), printed and written as Parquet.
#
#    ```
#    trace-crs human agree --labels study/labels.jsonl \
#      --key study/key.jsonl --out study/analysis
#    ```
#
# Then `make paper HUMAN_LABELS=study/labels.jsonl HUMAN_KEY=study/key.jsonl` runs step 4 into
# `results/<profile>/human/` and rebuilds this page from it. Built without `HUMAN_LABELS`, the
# page shows the paper's tables only (an earlier analysis is removed, never shown stale).
#
# The two screenshots below are the real tool (`make human-screens`, headless Chromium) on
# invented demonstration items, with some fields filled in.

# %%
human_eval.screenshot("human_task1")

# %%
human_eval.screenshot("human_task2")
