"""Trace metrics (paper §3, Appendix A Table 7, Appendix J, L, O): one module per family.

``text`` (BLEU-4, ROUGE-L), ``recommendation`` (Recall/Hit/MRR, multi-reference recall),
``grounding`` (GS, CD, PC, CGS, CGSent), ``entailment`` (NLI backends), ``practical``
(spatial coherence, route, price, diversity), ``dialogue`` (TSR, T2R, rejection recovery),
``judge`` (LLM-as-judge, cross-judge agreement), ``errors`` (Appendix O), ``quotes`` (the
one citation parser), ``registry`` (``METRICS``) and ``score`` (``score_predictions``).
"""

from typing import Any

__all__ = ["METRICS", "PredictionError", "ScoreConfig", "Scores", "read_predictions", "score_predictions"]


def __getattr__(name: str) -> Any:  # the public names, imported on first use (the registry loads MiniLM lazily)
    if name in ("ScoreConfig", "Scores", "score_predictions"):
        from trace_crs.metrics import score

        return getattr(score, name)
    if name in ("PredictionError", "read_predictions"):
        from trace_crs.metrics import predictions

        return getattr(predictions, name)
    if name == "METRICS":
        from trace_crs.metrics.registry import METRICS

        return METRICS
    raise AttributeError(f"module 'trace_crs.metrics' has no attribute {name!r}")
