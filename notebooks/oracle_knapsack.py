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
baselines = None
cost = 'latency_s'
n_points = 20
n_boot = 100
seed = 42

# %% [markdown]
# # Oracle knapsack — how much could per-dialogue routing gain?
#
# After HotelQuEST's oracle models: the **budget oracle** picks exactly one baseline per dialogue
# to maximise total quality under a total cost budget (an exact multiple-choice knapsack), the
# **quality oracle** picks per dialogue the cheapest of the best baselines. Quality is the joint
# score of `trace_crs.oracle.quality`: the mean of per-dialogue R@1, CGS and rejection
# recovery (the last only where the dialogue has a rejection); cost is the `cost` column below
# summed over the dialogue's turns in the runs' records. Both oracles know every outcome in
# advance: these are **in-sample upper bounds with perfect foresight**, not routers.

# %%
from trace_crs.report import oracle_knapsack, present, prose, provenance, results

df = oracle_knapsack.load(results_dir, runs=runs, baselines=baselines, cost=cost, n_points=n_points,
                          n_boot=n_boot, seed=seed)
results.write_table(df, results_dir, oracle_knapsack.NAME)
prose.glue_facts("oracle", oracle_knapsack.facts(df))

# %% [markdown]
# On the {glue:text}`oracle_n_dialogues` dialogues every one of the {glue:text}`oracle_n_baselines`
# baselines was run on, the best single baseline is {glue:md}`oracle_best_single_label` (joint
# quality {glue:text}`oracle_best_single_quality:.3f` at {glue:text}`oracle_best_single_cost:.4g` per
# dialogue, cost {glue:md}`oracle_cost_column`). The quality oracle reaches
# {glue:text}`oracle_oracle_quality:.3f` (+{glue:text}`oracle_oracle_gain:.3f`) at
# {glue:text}`oracle_oracle_cost:.4g` per dialogue, routing most often to
# {glue:md}`oracle_oracle_top_label` ({glue:text}`oracle_oracle_top_share:.2f` of dialogues). The
# budget curve {glue:md}`oracle_elbow_text`. All of these are {glue:md}`oracle_label`.

# %%
present.table(df[df["kind"] != "budget"])

# %%
oracle_knapsack.plot(df);

# %% [markdown]
# The full budget sweep (solver used at each budget; bands from a dialogue bootstrap):

# %%
present.table(df[df["kind"] == "budget"])

# %% [markdown]
# ## Provenance of these numbers

# %%
provenance.section(results_dir, runs)
