"""The paper's human evaluation as a kit (seed 000 App. K, Tables 10–15).

Label records and their reader (``labels``), agreement statistics — Krippendorff α,
leave-one/pair-out, per-annotator behaviour, Task 2 Jaccard (``agreement``) — and the
metric–human validation tables (``validity``).
"""
