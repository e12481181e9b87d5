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
# # Unsolvable requests and abstention (TravelBench)
#
# TravelBench (seed 003) adds an *Unsolvable* subtask: requests an agent cannot satisfy, where
# the right answer is to say so (its convention: answer `[Unsolved]`). Trace dialogues are
# feasible by construction, so we build an unsolvable set from the KB and the corpus
# (`trace-crs dialogues unsolvable`): constraints no candidate satisfies (contradictory or
# over-tight, checked by brute force over the KB; contradictions over noise levels and styles), a
# city or POI type the KB does not cover, requests that need live data or booking, and requests
# with no clear intent (TravelBench's "key context missing": no city, no kind of place, or
# nothing at all). A ranker abstains when its best candidate's score is
# below a threshold τ; generative LLM baselines may answer `[Unsolved]` (counted in the live
# runs' abstention rate). Solvable dialogues are a seeded sample of the corpus. TravelBench's
# own abstention numbers are not in the seed text we have, so there is no reported column here.

# %%
from trace_crs import report

frames = report.travelbench_abstention.load(results_dir)
report.prose.glue_facts("tba", report.travelbench_abstention.facts(frames))
frames["sweep"].attrs["status"] or "Abstention outputs found."

# %% [markdown]
# ## The unsolvable set, by reason

# %%
report.present.table(frames["reasons"])

# %% [markdown]
# ## Best threshold per ranker
#
# The τ with the highest F1 over the sweep. It is chosen on the same items it is scored on, so
# it is an in-sample upper bound, not a tuned deployment setting.

# %%
best = report.travelbench_abstention.best_f1(frames["sweep"])
report.results.write_table(best, results_dir, report.travelbench_abstention.NAME)
report.present.table(best)

# %% [markdown]
# At its best τ, {glue:md}`tba_best_ranker` reaches an abstention F1 of {glue:md}`tba_best_f1_md`
# while declining {glue:md}`tba_best_far_md` of the {glue:text}`tba_n_solvable` solvable requests
# ({glue:text}`tba_n_unsolvable` unsolvable items over {glue:text}`tba_n_reasons` reasons): a
# retrieval score says how well the best candidate matches the words of the request, not
# whether any candidate can satisfy it.
#
# Share of each kind of request declined at that τ (the `solvable` row is the false-abstention rate):

# %%
report.present.table(report.travelbench_abstention.recall_by_reason(frames["confidence"], best))

# %%
report.travelbench_abstention.plot(frames["sweep"]);

# %% [markdown]
# ## LLM baselines on the unsolvable set
#
# The LLM baselines are told TravelBench's rule (`trace_crs/baselines/unsolved_rule.py`, appended
# to every LLM instruction: answer `[Unsolved]` when the request cannot be solved) and run on a
# seeded subset of the unsolvable items and of solvable dialogues (`make abstention-llm`, the
# `closed_llm` run's local model; optional: the table below is empty until it exists). They decline in
# words, so there is no threshold: one row each, beside the rankers' best-τ rows above (whose τ
# was chosen in-sample, an advantage the LLM rows do not have). Recall and the false-abstention
# rate carry Wilson 95% intervals over their n (`n_unsolvable`, `n_solvable`: a seeded subset, so
# wide). `n_fallbacks` counts answers replaced by the Popularity fallback after a failed call
# (unparseable, truncated or empty replies: the system's failure rate; they never decline).

# %%
llm = report.travelbench_abstention.llm_rows(results_dir)
report.results.write_table(llm, results_dir, report.travelbench_abstention.LLM_NAME)
report.present.table(llm, "LLM baselines on the unsolvable set ([Unsolved] rule)") if len(llm) else "LLM abstention has no outputs on this profile yet (make abstention-llm)."

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("travelbench_abstention", {"llm_calls": _llm_calls.note(results_dir, "travelbench_abstention")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`travelbench_abstention_llm_calls`
