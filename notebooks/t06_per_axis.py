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
closed_runs = ['closed', 'closed_llm']
open_runs = ['open', 'open_llm']
nli_runs = None
n_boot = 1000

# %% [markdown]
# # Table 6 — Per-axis stressors
#
# Open-set R@1 (system level, open-set subset), fuzzy grounding GS, provenance coverage PC,
# entailment grounding (NLI column: the backend is the `nli` field below; read from `nli_runs` when set,
# e.g. the default profile's seeded `closed_nli` subset, whose size is in the provenance table) and rejection recovery.

# %%
from trace_crs import report

df = report.t06_per_axis.load(results_dir, closed_runs=closed_runs, open_runs=open_runs, nli_runs=nli_runs)
report.results.write_table(df, results_dir, report.t06_per_axis.NAME)
report.prose.glue_facts("t06", report.t06_per_axis.facts(df))

# %% [markdown]
# Entailment grounding was scored for {glue:text}`t06_n_nli_baselines` baselines. The best
# rejection recovery is {glue:md}`t06_best_recovery_label` at {glue:text}`t06_best_recovery:.3f`;
# the mean absolute GS difference to the paper is {glue:text}`t06_mean_abs_diff_gs:.3f`.

# %%
report.present.axes(df, caption="Table 6")

# %% [markdown]
# LLM rows, each cell with its number of dialogues n and a 95 % dialogue-cluster bootstrap interval
# ("insufficient n" below {glue:text}`t06_min_clusters` dialogues or for a degenerate interval).

# %%
report.prose.glue_facts("t06", {"min_clusters": report.compare.MIN_CLUSTERS})
report.present.table(report.compare.intervals(df, results_dir, n_boot=n_boot, elsewhere={"recall@1_open": (open_runs, "recall@1")}))

# %%
report.t06_per_axis.plot(df);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, list(dict.fromkeys([*closed_runs, *open_runs, *(nli_runs or [])])))

# %% tags=["remove-cell"]
from trace_crs.report import llm_calls as _llm_calls, prose as _prose

_prose.glue_facts("t06_per_axis", {"llm_calls": _llm_calls.note(results_dir, "t06_per_axis")})

# %% [markdown]
# **Where this page's model outputs came from.** {glue:md}`t06_per_axis_llm_calls`
