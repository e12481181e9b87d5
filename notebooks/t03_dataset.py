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

# %% [markdown]
# # Table 3 — Dataset statistics
#
# The knowledge base and the dialogue corpus of this profile beside the paper's printed
# statistics (the paper's KB is built from Yelp; ours from the source named in the data card).

# %%
from trace_crs import report

df = report.t03.load(results_dir, kb_dir=kb_dir, dialogues_path=dialogues_path)
report.prose.glue_facts("t03", report.t03.facts(df))

# %% [markdown]
# This profile has {glue:text}`t03_n_pois` POIs and {glue:text}`t03_n_dialogues` dialogues
# averaging {glue:text}`t03_turns_mean:.1f` turns.

# %%
df

# %%
report.t03.plot(df);
