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
# # Figure 3 — Dialogue generation pipeline (Appendix C)
#
# The paper builds Trace in five stages (§2.1; its full diagram is Appendix C): scenario
# construction, candidate POI selection, dialogue generation, quality validation and difficulty
# annotation. Panel (a) names the module of this compendium that implements each stage. Panel
# (b) is the chain that runs them and everything after, drawn from make's own dependency
# database for `make paper` on this profile (`make -pnq`, which reads the makefiles and runs
# nothing): every file the book depends on, collapsed to one node per kind of file, with the
# number of files each node stands for. Source code, tests and make's bookkeeping files are left
# out. Because the graph is read, not drawn, a new stage in the build appears here by itself.

# %%
from trace_crs import report

df = report.f03_pipeline.load(results_dir)
report.results.write_table(df, results_dir, report.f03_pipeline.NAME)
report.prose.glue_facts("f03", report.f03_pipeline.facts(df))

# %% [markdown]
# The build of this profile has {glue:text}`f03_n_nodes` kinds of file joined by
# {glue:text}`f03_n_edges` dependencies in {glue:text}`f03_n_layers` layers.

# %%
report.f03_pipeline.plot(df);

# %%
report.present.table(report.f03_pipeline.stages(), caption="Figure 3 (a): stage and module")
