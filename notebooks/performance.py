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
bench_dir = 'bench/results'

# %% [markdown]
# # Performance
#
# How fast the compendium's slow parts run, as `make bench` measured them. Nothing on this page is
# typed: every row is read from a benchmark's JSON file committed in `bench/results/` (`make bench-table` copies them
# from `results/bench/` after a `make bench` run), with the date and the machine load the run
# recorded; a benchmark without a committed file says so. Benchmarks are records, never
# timed tests: they ran on one shared machine, with small n, so no row carries an interval. The
# time of a whole build is on the Reproduce page, from the timing file every step of the build
# writes.

# %%
from trace_crs import report

df = report.performance.load(results_dir, bench_dir=bench_dir)
report.results.write_table(df, results_dir, report.performance.NAME)
report.prose.glue_facts("perf", report.performance.facts(df))

# %% [markdown]
# {glue:text}`perf_n_measured` of the {glue:text}`perf_n_rows` rows are measured;
# {glue:text}`perf_n_not_run` have no committed result yet.

# %%
report.present.table(df, caption="Benchmarks (make bench)")

# %% [markdown]
# ## What the rows say
#
# *Parallel slots* (`lm.slots`: one worker process decoding several requests in one llama.cpp
# batch per step) and *prompt-lookup drafts* (`lm.draft`) attack decoding; on a CPU most of the
# local model's time is prefill (the profile rows: prompt tokens evaluated after the reused KV
# prefix), which batching and drafts do not touch. Both are off by default: records must not
# depend on a speed setting, and the slot and draft rows show replies that differ from
# token-by-token decoding. A native llama.cpp build (`make llama-native`) is the one route that
# speeds up prompt processing; its replies are recorded under their own model id
# (`trace_crs.lm.build`) and never mixed with the portable build's. Re-measure on your machine
# with `make bench` (and `make bench-draft`, `make bench-llama-build`): machines with more cores
# or a GPU may change these conclusions.
#
# ## Where the numbers come from

# %%
report.present.table(report.performance.sources(bench_dir), caption="Committed benchmark results")
