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

# %% [markdown]
# # NLI threshold and the bimodality check (Appendix L)
#
# Entailment grounding at NLI thresholds from 0.3 to 0.7 on a seeded sample of dialogues, and
# whether the claims' entailment probabilities sit far from the threshold. Both are computed by
# `trace-crs stats sensitivity nli|bimodality` (sample size, seed, baselines and backend in
# `mk/sensitivity.mk`); this page reads them.

# %%
from trace_crs import report

nli = report.nli_threshold.load(results_dir, run=run)
report.results.write_table(nli, results_dir, report.nli_threshold.NAME)
report.prose.glue_facts("nli", report.nli_threshold.facts(nli))
report.present.table(nli.pivot(index="baseline", columns="setting", values="value"))

# %%
report.nli_threshold.plot(nli);

# %% [markdown]
# ## Bimodality of the claim probabilities

# %%
bim = report.nli_bimodality.load(results_dir, run=run)
report.results.write_table(bim, results_dir, report.nli_bimodality.NAME)
report.prose.glue_facts("bimodality", report.nli_bimodality.facts(bim))
report.present.table(bim)

# %% [markdown]
# On {glue:text}`nli_n_dialogues` dialogues with backend {glue:md}`nli_backend`, moving the
# threshold from 0.3 to 0.7 changes entailment grounding by at most
# {glue:text}`nli_max_change:.3f` (paper, with DeBERTa: within {glue:md}`nli_paper_change`). Of
# {glue:text}`bimodality_n_claims` claims, at most a share of
# {glue:text}`bimodality_max_borderline:.3f` per baseline lies between 0.3 and 0.7; mean
# Sarle coefficient {glue:text}`bimodality_mean_sarle_b:.3f` (above 5/9 suggests bimodality).

# %%
report.nli_bimodality.plot(bim);

# %% [markdown]
# ## Provenance of these numbers

# %%
report.provenance.section(results_dir, [run])
