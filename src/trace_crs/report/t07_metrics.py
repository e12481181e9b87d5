"""Table 7 (Appendix A): the metric catalogue, generated from the metric registry.

The paper's 25 rows (dimension, metric, definition; ``report/paper/table7_metrics.csv``; the
"Novel?" checkmarks were lost in extraction) are matched to our registry entries
(:data:`trace_crs.metrics.registry.METRICS`): label, level, aggregation, direction, the
:class:`~trace_crs.config.ScoreConfig` settings each reads with their defaults, and its family
(:data:`~trace_crs.metrics.registry.FAMILIES`: dimension, defining modules, paper section).  The
five LLM-judge rows are the judge scales of :mod:`trace_crs.metrics.judge`; the three human
rows are computed by the annotation kit (:mod:`trace_crs.human`), not by ``trace-crs score``.
Registry entries the paper's catalogue does not list close the table.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.metrics import registry
from trace_crs.report import paper

NAME = "t07_metrics"
PAPER = "table7_metrics"
# paper metric (Table 7) -> registry key
REGISTRY_KEYS = {
    "BLEU-4": "bleu4",
    "ROUGE-L": "rouge_l",
    "Recall@1": "recall@1",
    "Recall@3": "recall@3",
    "MRR": "mrr",
    "CGS (Composite)": "cgs",
    "Grounding Score": "gs",
    "Entailment Gnd.": "entailment",
    "Citation Density": "cd",
    "Provenance Cov.": "pc",
    "Spatial Coherence": "spatial_coherence",
    "Route Efficiency": "route_km",
    "Price Alignment": "price_alignment",
    "Itin. Diversity": "itinerary_diversity",
    "TSR": "tsr",
    "T2R": "t2r",
    "Rejection Recovery": "rejection_recovery",
}
# paper metric -> judge scale (metrics.judge.SCALES) or human-study measure (trace_crs.human)
JUDGE_SCALES = {
    "Relevance": "relevance",
    "Informativeness": "informativeness",
    "Grounding Quality": "grounding_quality",
    "Natural Flow": "natural_flow",
    "Justification": "justification",
}
HUMAN = {
    "Citation Precision": "citation precision (majority vote)",
    "Informativeness (H)": "informativeness (Likert)",
    "Naturalness (H)": "naturalness (Likert)",
}
ARROW = {True: "↑", False: "↓"}


def _settings(key: str) -> str:
    return ", ".join(f"{f}={v}" for f, v in registry.defaults(key).items()) or "—"


def registry_row(key: str) -> dict[str, Any]:
    """Our side of one registered metric."""
    m, fam = registry.METRICS[key], registry.family(key)
    return {
        "key": key,
        "label": m.label,
        "level": m.level,
        "aggregation": m.aggregation + (f" of {m.of}" if m.of else ""),
        "direction": ARROW[m.higher_is_better],
        "settings (defaults)": _settings(key),
        "defined in": ", ".join(f"`{x.removeprefix('trace_crs.')}`" for x in fam.modules),
        "formula": fam.section,
        "_dimension": fam.dimension,
    }


def _other(kind: str, what: str, module: str, how: str) -> dict[str, Any]:
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"{what}: module {module} does not exist")
    return {
        "key": what,
        "label": kind,
        "level": "turn" if kind == "LLM judge" else "item",
        "aggregation": "mean",
        "direction": ARROW[True],
        "settings (defaults)": "—",
        "defined in": f"`{module.removeprefix('trace_crs.')}`",
        "formula": how,
    }


def load(results_dir: str | Path) -> pd.DataFrame:
    """One row per paper metric (printed order), then the registry entries the paper omits."""
    from trace_crs.metrics.judge import SCALES

    printed = paper.table(PAPER)
    rows = []
    for _, r in printed.iterrows():
        name = r["Metric"]
        if name in REGISTRY_KEYS:
            ours = registry_row(REGISTRY_KEYS[name])
        elif name in JUDGE_SCALES:
            if JUDGE_SCALES[name] not in SCALES:
                raise ValueError(f"{name}: judge scale {JUDGE_SCALES[name]!r} not in metrics.judge.SCALES")
            ours = _other("LLM judge", f"judge_{JUDGE_SCALES[name]}", "trace_crs.metrics.judge", "App. J, App. U")
        elif name in HUMAN:
            ours = _other("human study", HUMAN[name], "trace_crs.human.study", "App. K")
        else:
            raise ValueError(f"paper metric {name!r} has no counterpart in t07_metrics")
        ours.pop("_dimension", None)
        rows.append({"Dimension": r["Dimension"], "paper metric": name, "paper definition": r["Definition"], **ours})
    listed = set(REGISTRY_KEYS.values())
    for key in registry.METRICS:
        if key not in listed:
            ours = registry_row(key)
            dim = ours.pop("_dimension")
            rows.append({"Dimension": dim, "paper metric": "not in Table 7", "paper definition": "", **ours})
    return pd.DataFrame(rows)


def facts(df: pd.DataFrame) -> dict[str, Any]:
    return {
        "n_paper": int((df["paper metric"] != "not in Table 7").sum()),
        "n_registry": len(registry.METRICS),
        "n_extra": int((df["paper metric"] == "not in Table 7").sum()),
    }
