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
from trace_crs.report import core_judge, present, prose

df = core_judge.load(results_dir, run=run, judge=judges[0])
t28 = core_judge.table28(results_dir, run=run, judges=judges)
prose.glue_facts("core", core_judge.facts(df, t28) | {"status": core_judge.status(results_dir, run, judges)})

# %% [markdown]
# {glue:md}`core_status`
#
# ## Factor ratings per baseline
#
# Mean rating (0–4) per factor, CoRE-Avg and the debate's 0–100 score, over
# {glue:text}`core_n_transcripts` judged transcripts of {glue:text}`core_n_baselines` baselines.

# %%
present.table(df)

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
