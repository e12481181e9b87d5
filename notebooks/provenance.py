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
kb_dir = 'data/kb/default'
dialogues_path = 'data/dialogues/default/dialogues.jsonl'
runs = ['closed', 'closed_llm', 'open', 'open_llm', 'open_llm_dense', 'pool16', 'pool32']

# %% [markdown]
# # Provenance
#
# What produced the numbers of this book: the SHA256 of the KB files and of the dialogue
# corpus, the git commit of the code, the versions of the packages that computed them, when the
# last run was scored, and per run the baselines, sizes, signature fields (KB hash, pool, fuzzy
# threshold, entailment backend, seed), LM model id and weights SHA256, and the summed model
# latency. Everything is read from the files; nothing is typed.

# %%
from trace_crs import report

df = report.provenance.load(results_dir, kb_dir=kb_dir, dialogues_path=dialogues_path,
                            run_names=runs)
report.prose.glue_facts("prov", {"commit": df.loc[df["key"] == "git commit", "value"].iloc[0]})

# %% [markdown]
# The code is at commit {glue:md}`prov_commit`.

# %%
report.present.table(df, lift=False)

# %% [markdown]
# ## Timings
#
# Wall seconds of each step of the last `make paper` that ran it (runs, one scoring per run and
# baseline, one notebook execution per chapter), read from `results/<profile>/timings/`. A step
# that was skipped because nothing changed keeps the time of the build that last ran it (`build`
# names it). `seconds` is the attempt that finished the step; `earlier_s` the attempts before it
# that were killed or failed (`attempts` counts all), from the heartbeat every step writes while
# it runs. Counting every attempt, runs took
# {glue:text}`prov_run_seconds:.0f` s in total, scoring {glue:text}`prov_score_seconds:.0f` s,
# notebooks {glue:text}`prov_notebook_seconds:.0f` s.

# %%
steps = report.provenance.timings(results_dir)
stages = report.build_time.summary([results_dir]).get("per_stage", {})
report.prose.glue_facts("prov", {f"{k}_seconds": float(stages.get(k, 0.0)) for k in ("run", "score", "notebook")})
report.present.table(steps.drop(columns="earlier_attempts"))
