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
tolerance = 0.01
gap = 0.5

# %% [markdown]
# # Figure 2 — The Three-Competency Gap, and the headline findings
#
# Open-set accuracy against open-set grounding, one point per baseline; then one computed
# sentence per headline finding saying whether it holds on this run. A finding gets a verdict
# only when every baseline it compares was scored on enough dialogues (the minimum of the
# dialogue-cluster bootstrap) and the compared values' intervals are apart; otherwise it says
# "not resolved at n = …" (`trace_crs.report.findings` lists which values each finding compares).

# %%
from trace_crs import report

df = report.f02_gap.load(results_dir, open_runs=open_runs)
report.results.write_table(df, results_dir, report.f02_gap.NAME)
report.prose.glue_facts("f02", report.f02_gap.facts(df))
found = report.findings.load(results_dir, closed_runs=closed_runs, open_runs=open_runs,
                             nli_runs=nli_runs, tolerance=tolerance, gap=gap)
report.results.write_table(found, results_dir, report.findings.NAME)
report.prose.glue_sentences("finding", found)

# %% [markdown]
# On the open set the most accurate baseline is {glue:md}`f02_top_r1_label`
# (R@1 {glue:text}`f02_top_r1:.3f`) and the best grounded is {glue:md}`f02_top_cgs_label`
# (CGS {glue:text}`f02_top_cgs:.3f`).
#
# - {glue:md}`finding_1a`
# - {glue:md}`finding_1b`
# - {glue:md}`finding_1c`
# - {glue:md}`finding_1d`
# - {glue:md}`finding_2a`
# - {glue:md}`finding_2b`
# - {glue:md}`finding_3a`

# %%
report.present.table(found)

# %%
report.f02_gap.plot(df);

# %% [markdown]
# The paper's values of this figure: open-set R@1 as Table 6 prints it and open-set CGS where
# its prose gives one (Finding 2b: Dense and Multi-Review Synthesis); "—" where it gives none.
# Hollow markers in the figure are the paper's points, each with an arrow to ours.

# %%
report.present.table(report.f02_gap.printed(df), caption="Figure 2: the paper's values and ours")

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, list(dict.fromkeys([*closed_runs, *open_runs, *(nli_runs or [])])))
