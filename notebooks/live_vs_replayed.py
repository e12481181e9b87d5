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
live_runs = ['live', 'live_llm']
replay_runs = ['closed', 'closed_llm']

# %% [markdown]
# # Replayed vs live — do baselines that answer replayed conversations also converse?
#
# Every other chapter replays reference dialogues: a baseline answers each system turn of a
# conversation someone else had, so its recommendation never changes what the user says next.
# Here the same baselines converse with a simulated user instead (`trace-crs converse`,
# TravelBench's simulated-user loop adapted to Trace): the user opens with one of its hidden
# preferences, accepts a recommended POI exactly when it meets all of them, and otherwise
# rejects it by name and reveals a preference it violates, until it accepts or the turn cap is
# reached. Its sentences come from the simulator's own paraphrase bank, never from the keyword
# list the baselines read. Replayed success means hitting the reference's gold POI; live
# success means the user accepted. TravelBench's own numbers are not in the seed text, so none
# are set beside these.

# %%
from trace_crs.report import live_vs_replayed, present, prose, results

df = live_vs_replayed.load(results_dir, live_runs=live_runs, replay_runs=replay_runs)
if len(df):  # no live run: no table (the page says so)
    results.write_table(df, results_dir, live_vs_replayed.NAME)
prose.glue_facts("live", live_vs_replayed.facts(df))

# %% [markdown]
# {glue:md}`live_status`
#
# Over {glue:text}`live_n_live_dialogues` live conversations per baseline (at most
# {glue:text}`live_max_turns` system turns each), Kendall's τ between the replayed and the live
# ranking of the {glue:text}`live_n_baselines` baselines is {glue:md}`live_tau_tsr_md` for
# TSR (p = {glue:md}`live_p_tsr_md`), {glue:md}`live_tau_t2r_md` for T2R and
# {glue:md}`live_tau_rejection_recovery_md` for rejection recovery. A τ near one means the
# replayed benchmark already ranks systems as a conversation would; a low τ means replay
# credits systems for answering turns they would never have reached.

# %%
present.table(df)

# %%
present.table(live_vs_replayed.rank_agreement(df))

# %%
live_vs_replayed.plot(df);
