"""Statistics over score frames (ARCHITECTURE.md §6, paper Appendix L).

Cluster bootstrap by dialogue (``bootstrap``), per-turn spreads (``spreads``), paired tests and
correlations (``paired``), sensitivity analyses (``sweeps``, ``cgs_variants``, ``checks``,
``breakdowns``) and cost accounting (``cost``).  Every function takes tidy DataFrames with a
``baseline`` column and returns a tidy DataFrame; every random draw takes a ``seed``.
"""
