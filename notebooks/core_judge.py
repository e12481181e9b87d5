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
judges = ['core_a', 'core_b']

# %% [markdown]
# # CoRE: a user-centric judge of whole conversations
#
# CoRE (Chen et al., seeds 001/002) rates a conversation on twelve factors in four dimensions —
# Dialogue Actions, Language Expression, Recommended Items, Response Content — on 0–4 rubrics,
# then merges them by the mean (CoRE-Avg) or by a debate of four roles (Common User, a local
# travel expert, Linguist, HCI Expert). Here every baseline of the run's seeded dialogues is
# spliced into the reference conversation (`trace-crs judge transcripts --run`) and judged with
# the tourism rubrics of `trace_crs/judge/data/rubrics.yaml` (`make judge`). The judge models are
# the `judges` parameter; which of them ran on this profile:

# %%
from trace_crs.report import core_judge, present, prose, results

df = core_judge.load(results_dir, run=run, judge=judges[0])
t28 = core_judge.table28(results_dir, run=run, judges=judges)
if len(df):  # judge A's factor table, when judge A ran on this profile
    results.write_table(df, results_dir, core_judge.NAME)
results.write_table(t28, results_dir, core_judge.T28)
prose.glue_facts("core", core_judge.facts(df, t28) | {"status": core_judge.status(results_dir, run, judges)})
from trace_crs.report import judge_validity

prose.glue_facts("core", {"validity": judge_validity.judge_note(results_dir)})

# %% [markdown]
# {glue:md}`core_status`
#
# {glue:md}`core_validity`
#
# ## CoRE on the conversations the systems actually had
#
# Replayed transcripts splice a baseline's answers into the reference conversation, so the judge
# would rate reference turns that are identical for every baseline and a user who never heard the
# baseline. Here each baseline's **live** conversations with the simulated user (`make live`,
# `make live-llm`; `trace-crs converse`) are judged instead (`make judge-live`): only the opening
# request, the same for every system, is shown as history; every rated turn is the system's or
# the user's live turn. Baselines ranked by CoRE-Avg (0–4) with n conversations and a 95%
# dialogue-bootstrap interval, beside Persuasiveness (0–2, CoRE Table 7's conventional metric, rated by
# the same judge; `trace_crs/judge/persuasive.py`), live TSR and the replayed Trace metrics;
# {glue:text}`core_live_n_baselines` baselines, {glue:text}`core_live_n_conversations`
# conversations judged (non-LLM baselines on a seeded subset of the live run, LLM baselines on
# the LLM live run's subset — different dialogues, so compare LLM and non-LLM rows with care).

# %%
from trace_crs.report import core_live

live = core_live.load(results_dir, judge=judges[0])
live_tau = core_live.tau(live)
results.write_table(live, results_dir, core_live.NAME)
results.write_table(live_tau, results_dir, core_live.TAU)
prose.glue_facts("core", core_live.facts(live, live_tau))
present.table(live, "CoRE-Avg on live conversations")

# %%
core_live.plot(live);

# %% [markdown]
# How often the judge failed on these conversations, per baseline: the share of factor ratings
# still empty after every re-ask (such a conversation has no CoRE-Avg), the share of the judge's
# replies that were unusable (no parseable 0–4 rating: the parse-failure rate) and that were cut
# at `max_tokens`, replies per rating, the judge's model seconds per conversation — and, beside
# them, the share of the system's own turns answered by the Popularity fallback after its LLM
# call failed (`trace_crs/report/judge_failures.py`).

# %%
from trace_crs.report import judge_failures

live_fail = judge_failures.live(results_dir, judge=judges[0])
results.write_table(live_fail, results_dir, judge_failures.NAME)
present.table(live_fail, "Judge and system failure rates on the live conversations")

# %% [markdown]
# Cost against quality: each baseline's CoRE-Avg on live conversations against the model seconds
# its system spends on one turn (the median over its turns in the replayed run, where time is
# measured; the live outputs carry none so that they stay byte-identical;
# `trace_crs/report/core_cost.py`). Non-LLM rankers answer in milliseconds, the LLM baselines in
# seconds on this machine's local model.

# %%
from trace_crs.report import core_cost

cost = core_cost.table(live, core_cost.model_seconds(results_dir))
results.write_table(cost, results_dir, core_cost.NAME)
core_cost.plot(cost);

# %% [markdown]
# Rank agreement of CoRE-Avg on live conversations with each replayed metric and with live TSR
# (Kendall τ over the baselines judged): replayed Recall@1 {glue:md}`core_live_tau_recall1_md`,
# replayed CGS {glue:md}`core_live_tau_cgs_md`, live TSR {glue:md}`core_live_tau_tsr_md`
# ("not computed": fewer than two baselines judged).

# %%
present.table(live_tau, "Rank agreement of live CoRE-Avg with Trace metrics (Kendall τ)")

# %% [markdown]
# ### Did asking help?
#
# CoRE's Proactiveness and Recoverability presume a system that can ask. In the live loop a
# system may ask a clarifying question (`[Ask]`, `trace_crs/live/ask.py`); the non-LLM rankers
# are given a policy — ask once about the facet that splits the candidates most evenly — and
# the simulated user answers from its profile, or says it has no preference when the profile
# says nothing (TravelBench: "not mentioned means unknown"). The LLM baselines decide for
# themselves: in their live run (`make live-llm`) their instruction carries an `[Ask]` rule while
# their one question is left (`trace_crs/baselines/ask_rule.py`), and the questions they asked are
# the LLM rows' questions per dialogue in the ranking above. Live TSR and T2R with one question
# allowed (`make live-ask`) minus without (`make live`), same dialogues and users, paired
# dialogue bootstrap (95%); a question costs a turn, so T2R can rise even when TSR does.
# Empty until both runs exist.

# %%
ask = core_live.asking_effect(results_dir)
results.write_table(ask, results_dir, core_live.ASKING)
present.table(ask, "Live TSR and T2R with one question allowed minus without")

# %% [markdown]
# Why TSR moves: a question is one of the user's `max_turns` system turns (TravelBench counts it
# as a turn), so a ranker that asks once recommends one time fewer. The paired TSR difference
# splits exactly into the turn's cost — the no-ask run's TSR within as many recommendations as
# the asking run had, minus its full TSR ("budget") — and what the answer bought given the same
# number of recommendations ("answer"; `trace_crs/report/core_asking_cost.py`, paired dialogue
# bootstrap, 95%). Over the rankers ({glue:text}`core_cost_n` dialogues each): total
# {glue:md}`core_cost_total_min_md` to {glue:md}`core_cost_total_max_md`, budget
# {glue:md}`core_cost_budget_min_md` to {glue:md}`core_cost_budget_max_md`, answer
# {glue:md}`core_cost_answer_min_md` to {glue:md}`core_cost_answer_max_md`. The question was
# about a facet the user's profile leaves open — the user says it has no preference — in
# {glue:md}`core_cost_asked_open_share_min_md` to {glue:md}`core_cost_asked_open_share_max_md`
# of the dialogues, and the first recommendation after the answer differed from the no-ask run's
# first one in {glue:md}`core_cost_first_rec_changed_share_min_md` to
# {glue:md}`core_cost_first_rec_changed_share_max_md`. Where the budget part outweighs the
# answer part, asking is a trade-off lost to the fixed turn budget, not a fault of the loop: a
# ranker that ignores the user's words (Popularity) loses exactly its last-turn successes, and a
# bag-of-words ranker reads "no preference about the atmosphere" as a wish for atmosphere.

# %%
from trace_crs.report import core_asking_cost

ask_cost, ask_diag = core_asking_cost.load(results_dir)
results.write_table(ask_cost, results_dir, core_asking_cost.NAME)
results.write_table(ask_diag, results_dir, core_asking_cost.DIAGNOSTICS)
prose.glue_facts("core", core_asking_cost.facts(ask_cost, ask_diag))
present.table(ask_cost, "Live TSR with one question allowed: the turn's cost and the answer's gain")

# %%
present.table(ask_diag, "What the rankers asked and whether the answer changed their first recommendation")

# %% [markdown]
# The judge's view of the same comparison: CoRE-Avg, Proactiveness and Recoverability (0–4) of
# the conversations held with asking minus those held without, same dialogue, same simulated
# user, same judge settings (`make judge-live-ask`; the LLM baselines, whose live run asks,
# against their no-ask run, `make live-llm-noask judge-live-noask`), paired dialogue bootstrap
# (95%; `trace_crs/report/core_asking.py`). A conversation counts when the judge rated it on both
# sides; {glue:text}`core_ask_judged_pairs` conversations of
# {glue:text}`core_ask_judged_baselines` baselines are paired on CoRE-Avg (0 where these
# conversations were not judged: the smoke build skips this judge).

# %%
from trace_crs.report import core_asking

ask_judged = core_asking.load(results_dir)
results.write_table(ask_judged, results_dir, core_asking.NAME)
prose.glue_facts("core", core_asking.facts(ask_judged))
present.table(ask_judged, "CoRE ratings with one question allowed minus without")

# %% [markdown]
# ## Factor ratings per baseline
#
# Mean rating (0–4) per factor, CoRE-Avg and the debate's 0–100 score, over
# {glue:text}`core_n_transcripts` judged transcripts of {glue:text}`core_n_baselines` baselines.

# %%
present.table(df)

# %%
present.table(judge_failures.load(core_judge.judged_path(results_dir, run, judges[0])),
              "Judge failure rates on the replayed transcripts (as above)")

# %%
core_judge.plot(df);

# %% [markdown]
# ## A debate, with its whole chat
#
# The first judged transcript whose debate finished: every round's four statements (each role
# saw only its own three factor results and the earlier rounds).

# %%
present.table(core_judge.debate_example(results_dir, run=run, judge=judges[0]))

# %% [markdown]
# ## Table 28: two judges
#
# Per baseline, the mean CoRE-Avg of the two judges (`ours`, 0–4) beside the paper's GPT-4o and
# Claude means (`paper`, Likert 1–5: another instrument, so only the rankings compare). Kendall τ
# between the two judges' baseline rankings: ours {glue:md}`core_tau_ours_md`, the paper's
# {glue:md}`core_tau_paper_md`.

# %%
present.comparison(t28)

# %% [markdown]
# ## CoRE's reported numbers (reference: movie CRS data, not Trace)
#
# Agreement of CoRE's judges with human labels on ReDial / OpenDialKG logs (CoRE Table 22, QWK
# per factor) and of overall scores (Table 7; the debate reached Spearman
# {glue:md}`core_core_multi_agent_r_md`). Trace has no human CoRE labels yet;
# `trace-crs judge agree --pred … --human …` computes the same tables on any labelled set.

# %%
present.table(core_judge.reported("table22_qwk"))

# %%
present.table(core_judge.reported("table7_overall"))

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("core_judge", {"llm_calls": _llm_calls.note(results_dir, "core_judge")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`core_judge_llm_calls`
