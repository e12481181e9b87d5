"""Trace metrics (paper §3, Appendix A Table 7, Appendix J, L, O): one module per family.

``text`` (BLEU-4, ROUGE-L), ``recommendation`` (Recall/Hit/MRR, multi-reference recall),
``grounding`` (GS, CD, PC, CGS, CGSent), ``entailment`` (NLI backends), ``practical``
(spatial coherence, route, price, diversity), ``dialogue`` (TSR, T2R, rejection recovery),
``judge`` (LLM-as-judge, cross-judge agreement), ``errors`` (Appendix O), ``quotes`` (the
one citation parser), ``registry`` (``METRICS``) and ``score`` (``score_predictions``).
"""
