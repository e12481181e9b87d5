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
# # Does the judge agree with people?
#
# Every CoRE page of this book ranks systems with a local LLM judge. This page asks whether that
# judge's scores follow human judgements, on conversations nobody on this project wrote:
# CRSArena-Eval's OpenDialKG half (Joko and Hasibi, FACE, SIGIR 2026; MIT licence):
# {glue:text}`jv_n` movie-recommendation conversations between crowd workers and
# {glue:text}`jv_n_systems` CRSs, each rated by several annotators (an overall impression 0–4 and
# finer aspects). The data set is read from
# `../shared` and never copied into the repository; where it is absent this page says so and shows no numbers.
#
# **How the judge was chosen.** Each candidate configuration in
# `configs/judge_validity_<profile>.yaml` judged every conversation (`make judge-select`). The
# conversations were split in two halves ({glue:text}`jv_n_selection` and
# {glue:text}`jv_n_reporting`) with seed {glue:text}`jv_seed`, stratified by system; the configuration
# with the highest Spearman ρ between its CoRE-Avg and the human overall impression on the
# *selection* half is the evidence's choice, and the *reporting* half was not looked at to make
# it. Intervals are 95 % percentile bootstraps over conversations ({glue:text}`jv_n_boot`
# resamples, seeded).
# The candidates rate each factor with one output token and read the rating from the model's
# probabilities over the digits 0–4 (`--mode logprob`, `trace_crs/judge/geval.py`): the expected
# score (G-Eval's probability-weighted rating) or the most probable digit. The paper's own
# configuration — a rationale and a rating per factor (`--mode per-factor`) — stays one flag away
# and is what an API judge uses by default; with the local 0.5B model it gave the top rating
# on every factor to each of the low-rated conversations it was tried on (issue 44), at minutes of
# model time per conversation, so it is not a candidate here.
#
# **Two floors and a reference.** The *length floor* is the number of words in the system's
# turns — a score that knows nothing about quality; the *learned floor* is a ridge regression on
# MiniLM sentence embeddings of the system's turns, fit on one half's human ratings and applied
# to the other (both ways, so every prediction is out of sample). FACE is the published
# evaluator (a large API model with fine-grained prompts), scored from its released predictions
# on the same conversations; the published ρ of other evaluators are listed as reported.

# %%
from trace_crs.report import judge_validity
from trace_crs.report import present, prose, results

v, scores = judge_validity.load(results_dir)
facts = judge_validity.facts(v)
prose.glue_facts("jv", facts)
if v is not None:
    results.write_table(judge_validity.main_table(v), results_dir, judge_validity.NAME)

# %% [markdown]
# **Verdict.** The book's judge is {glue:md}`jv_chosen`; the selection half's evidence picks
# {glue:md}`jv_chosen_by_evidence`. {glue:md}`jv_verdict`. Meets the bar (ρ ≥ 0.50 on all
# conversations and above the length floor): {glue:md}`jv_passes`.

# %%
present.table(judge_validity.main_table(v), "Spearman ρ [95 % CI] with the human overall impression, per half")

# %%
if v is not None and scores is not None:
    judge_validity.plot_scatter(v, scores)

# %% [markdown]
# **Beyond length.** Longer system turns tend to be better ones here, so a judge that rewards
# length agrees with people to the degree the length floor does. The table gives each score's
# Spearman ρ with the length floor and its *partial* Spearman ρ with the human overall impression
# given length (the correlation of what the ranks of each leave unexplained by the ranks of
# length; `trace_crs/judge/validity.py`): near zero, a score tells nothing about quality that
# length does not.

# %%
present.table(judge_validity.length_table(v), "What each score says about the overall impression once length is known")

# %%
if v is not None:
    judge_validity.plot_aspects(v)

# %% [markdown]
# The aspects: `understanding`, `task_completion`, `interest_arousal` and `efficiency` are the
# annotators' dialogue-level ratings, `turn_relevance` and `turn_interestingness` their
# turn-level ratings averaged over the system's turns. None of them is one of CoRE's twelve
# factors; the overall impression is the target because CoRE-Avg is an overall score.

# %%
present.table(judge_validity.failures(v), "Failures, rating mass and cost per judged candidate")

# %%
present.folded(
    present.table(judge_validity.published(v), v["published"]["source"] if v else None),
    "Published correlations on this half (click to open)",
)

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("judge_validity", {"llm_calls": _llm_calls.note(results_dir, "judge_validity")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`judge_validity_llm_calls`
