"""CoRE: a user-centric LLM evaluator for any CRS transcript (seeds 001/002 §4).

``transcript`` (the input format) and ``adapters`` (Trace dialogues, run predictions, generic
CRS logs) → ``factors`` (the 12 factors and their 0–4 rubrics, ``data/rubrics.yaml``) →
``core`` (one DSPy call per transcript × factor, or all factors in one call) → ``aggregate``
(CoRE-Avg, mixture of evaluators) and ``debate`` (the 4-role multi-agent debate) → ``agree``
(meta-evaluation against human labels).
"""

# one DSPy call per factor (the paper's) | all factors in one call | one 1-token call per factor, the
# rating read from the rating tokens' probabilities (judge/geval.py)
MODES = ("per-factor", "one-call", "logprob")
RATINGS = ("expected", "greedy")  # logprob mode: the expected score | the most probable digit
AGGREGATORS = ("avg", "debate", "mixture")  # CoRE-Avg only | + the 4-role debate | per-factor judge mixture
