"""``METRICS``: the one registry of Trace metrics, keyed ``name@k`` (STYLE "Metrics").

Each entry is a :class:`Metric` carrying its metadata beside its definition (the
lm-evaluation-harness pattern): level (``turn`` or ``dialogue``), the function that computes a
column from a batch, the paper's display label (and the other headers the paper prints for it),
how the corpus value is aggregated (``mean``, ``pooled_ratio``, ``alt_only``), whether higher
is better, what it needs (``entailment`` metrics run only with an entailment backend) and which
:class:`~trace_crs.config.ScoreConfig` fields it reads (their defaults are the paper's values;
nothing here restates them).  Tables, the Deviations page and ``trace-crs score`` look labels
and directions up here.

Turn functions take ``(batch, cols, cfg)`` where ``cols`` holds the columns computed so far
(entries are evaluated in registry order, so CGS can reuse GS, CD and PC); dialogue functions
take ``(dialogue_batch, cfg)``.  The definitions live in the family modules (e.g.
:func:`trace_crs.metrics.recommendation.recall_at_k`, :func:`trace_crs.metrics.grounding.composite`
for CGS); this file only wires inputs to them.  The aggregate of every entry is computed by
:func:`trace_crs.metrics.score.aggregate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from trace_crs.config import ScoreConfig
from trace_crs.metrics import dialogue as dlg
from trace_crs.metrics import grounding as gr
from trace_crs.metrics import practical as pr
from trace_crs.metrics import recommendation as rec
from trace_crs.metrics import text as tx

LEVELS: tuple[str, ...] = ("turn", "dialogue")
# mean: over turns (turn metrics) or over the dialogues where defined (dialogue metrics);
# pooled_ratio: Σ numerator / Σ denominator of two per-dialogue columns (``pooled``);
# alt_only: the mean of turn metric ``of`` over turns that have acceptable alternatives (App. S).
AGGREGATIONS: tuple[str, ...] = ("mean", "pooled_ratio", "alt_only")


@dataclass(frozen=True)
class Metric:
    """One registered metric: its definition and the metadata every table reads."""

    level: str
    fn: Callable[..., np.ndarray] | None
    label: str
    higher_is_better: bool = True
    aggregation: str = "mean"
    needs: str | None = None
    reads: tuple[str, ...] = ()  # the ScoreConfig fields it depends on
    printed: tuple[str, ...] = ()  # other column headers the paper prints for it
    slug: str = ""  # short id in glued keys (``tau_r1_non_llm``); default: the key
    pooled: tuple[str, str] | None = None  # pooled_ratio: (numerator, denominator) columns
    of: str | None = None  # alt_only: the turn metric it restricts
    undefined: str = ""  # dialogue metrics: where a dialogue has no value (a table says "undefined", not "not run")

    def __post_init__(self) -> None:
        assert self.level in LEVELS and self.aggregation in AGGREGATIONS, self
        assert (self.aggregation == "pooled_ratio") == (self.pooled is not None), self
        assert (self.aggregation == "alt_only") == (self.of is not None) == (self.fn is None), self

    def compute(self, *args: Any) -> np.ndarray:
        """The metric's values; an alt-only metric has no function of its own (read ``of``)."""
        if self.fn is None:
            raise TypeError(f"{self.label} is alt-only: it restricts {self.of!r}, it has no function")
        return self.fn(*args)


def _each(f: Callable[[Any, Any], float], field: str) -> Callable[..., np.ndarray]:
    """Apply a per-dialogue function to one field of every dialogue."""
    return lambda db, cfg: np.array([f(x, cfg) for x in getattr(db, field)], dtype=float)


def _text(f: Callable[[list[str], list[str]], np.ndarray]) -> Callable[..., np.ndarray]:
    """A text-overlap metric of the response against the reference turn's view (§6.2)."""
    return lambda b, c, cfg: f(
        tx.text_view(b.text, cfg.text_reference), tx.text_view(b.reference_text, cfg.text_reference)
    )


def _cgs(score: str) -> Callable[..., np.ndarray]:
    """CGS over grounding column ``score`` (``gs``: CGS, ``entailment``: CGSent; App. J)."""
    return lambda b, c, cfg: gr.composite(c[score], c["cd"], c["pc"], cfg.cd_gate, cfg.pc_floor)


_RANKS = ("ranked_list",)  # every ranking metric reads which list is "the prediction" (App. J)
_CGS = ("fuzzy_threshold", "pc_window", "cd_gate", "pc_floor")

METRICS: dict[str, Metric] = {
    "recall@1": Metric("turn", lambda b, c, cfg: rec.recall_at_k(b.gold, b.ranked, 1), "R@1", reads=_RANKS, slug="r1"),
    "recall@3": Metric("turn", lambda b, c, cfg: rec.recall_at_k(b.gold, b.ranked, 3), "R@3", reads=_RANKS, slug="r3"),
    "hit@1": Metric("turn", lambda b, c, cfg: rec.hit_at_k(b.gold, b.ranked, 1), "Hit@1", reads=_RANKS),
    "hit@3": Metric("turn", lambda b, c, cfg: rec.hit_at_k(b.gold, b.ranked, 3), "Hit@3", reads=_RANKS),
    "mrr": Metric("turn", lambda b, c, cfg: rec.reciprocal_rank(b.gold, b.ranked), "MRR", reads=_RANKS),
    "mr_recall@1": Metric(
        "turn",
        lambda b, c, cfg: rec.multi_reference_recall_at_k(b.gold, b.alternatives, b.ranked, 1),
        "MR-R@1",
        reads=_RANKS,
    ),
    "mr_recall@3": Metric(
        "turn",
        lambda b, c, cfg: rec.multi_reference_recall_at_k(b.gold, b.alternatives, b.ranked, 3),
        "MR-R@3",
        reads=_RANKS,
    ),
    "bleu4": Metric("turn", _text(tx.bleu4), "BLEU", reads=("text_reference",), slug="bleu"),
    "rouge_l": Metric("turn", _text(tx.rouge_l_f1), "ROUGE-L", reads=("text_reference",)),
    "gs": Metric(
        "turn",
        lambda b, c, cfg: gr.grounding_score(b.text, b.cited, cfg.fuzzy_threshold),
        "GS",
        reads=("fuzzy_threshold",),
        printed=("FuzzyGS",),
    ),
    "cd": Metric("turn", lambda b, c, cfg: gr.citation_density(b.text, b.cited), "CD", printed=("CiteDensity",)),
    "pc": Metric("turn", lambda b, c, cfg: gr.provenance_coverage(b.text, cfg.pc_window), "PC", reads=("pc_window",)),
    "cgs": Metric("turn", _cgs("gs"), "CGS", reads=_CGS),
    "entailment": Metric(
        "turn",
        lambda b, c, cfg: b.entailment,
        "Entail",
        needs="entailment",
        reads=("entail_threshold",),
        printed=("NLI", "EntailmentGS"),
    ),
    "cgs_ent": Metric("turn", _cgs("entailment"), "CGSent", needs="entailment", reads=_CGS[1:] + ("entail_threshold",)),
    "spatial_coherence": Metric(
        "dialogue",
        _each(lambda d, cfg: pr.spatial_coherence(d, cfg.spatial_km), "coords"),
        "SpatialCoherence",
        reads=("spatial_km",),
    ),
    "route_km": Metric("dialogue", _each(lambda d, cfg: pr.route_km(d), "coords"), "Route km", higher_is_better=False),
    "price_alignment": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [pr.price_alignment(p, pr.price_ceiling(u)) for p, u in zip(db.prices, db.user_texts, strict=False)],
            dtype=float,
        ),
        "PriceAlignment",
    ),
    "itinerary_diversity": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [pr.itinerary_diversity(t, p) for t, p in zip(db.poi_types, db.pool_types, strict=False)], dtype=float
        ),
        "ItineraryDiversity",
        undefined="defined only where the candidate pool offers at least two POI types; every Trace pool is one "
        "city × POI-type slice (metrics.practical)",
    ),
    "tsr": Metric("dialogue", _each(lambda d, cfg: dlg.task_success(d), "hits"), "TSR"),
    "t2r": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [dlg.turns_to_first_hit(h, *db.t2r_counted[i]) for i, h in enumerate(db.hits)], dtype=float
        ),
        "T2R",
        higher_is_better=False,
        reads=("t2r_count",),
    ),
    # App. J: the fraction of reject_and_refine episodes recovered, pooled over the corpus
    # (metrics.dialogue); the per-dialogue rate is kept for per-dialogue frames.
    "rejection_recovery": Metric(
        "dialogue",
        lambda db, cfg: np.array(
            [dlg.rejection_recovery(h, r) for h, r in zip(db.hit_by_turn, db.recovery, strict=False)], dtype=float
        ),
        "Recovery",
        aggregation="pooled_ratio",
        pooled=("recovery_hits", "recovery_episodes"),
        printed=("RejectionRecovery",),
    ),
    "mr_recall@1_alt_only": Metric(
        "turn", None, "MR-R@1 (alt-only)", aggregation="alt_only", of="mr_recall@1", reads=_RANKS
    ),
    "mr_recall@3_alt_only": Metric(
        "turn", None, "MR-R@3 (alt-only)", aggregation="alt_only", of="mr_recall@3", reads=_RANKS
    ),
}

# Columns computed per turn / per dialogue, in registry order (the derived aggregates excluded).
TURN_METRICS = tuple(k for k, m in METRICS.items() if m.level == "turn" and m.fn is not None)
DIALOGUE_METRICS = tuple(k for k, m in METRICS.items() if m.level == "dialogue")
ALT_ONLY: dict[str, str] = {k: m.of for k, m in METRICS.items() if m.of is not None}
POOLED_RATIOS: dict[str, tuple[str, str]] = {k: m.pooled for k, m in METRICS.items() if m.pooled is not None}


def label(key: str) -> str:
    """The display label of metric ``key``; keys outside the registry are returned unchanged."""
    return METRICS[key].label if key in METRICS else key


def undefined(key: str) -> str:
    """Where the metric has no value, as its entry declares it ("no dialogue defines it" by default)."""
    return METRICS[key].undefined or "no dialogue defines it"


def higher_is_better(key: str) -> bool:
    """The direction of metric ``key`` (KeyError for a key outside the registry)."""
    return METRICS[key].higher_is_better


def slug(key: str) -> str:
    """The short id of metric ``key`` in glued keys (its ``slug``, else the key)."""
    return METRICS[key].slug or key


def defaults(key: str) -> dict[str, Any]:
    """The :class:`ScoreConfig` defaults (the paper's values) of the fields metric ``key`` reads."""
    return {f: getattr(ScoreConfig, f) for f in METRICS[key].reads}


def columns(keys: Iterable[str], header: Iterable[str] | None = None) -> dict[str, str]:
    """``{column: metric key}`` for ``keys`` in order: each metric's label or, where the printed
    table's ``header`` spells it otherwise, the printed spelling that ``header`` uses."""
    names = list(header) if header is not None else None
    out: dict[str, str] = {}
    for key in keys:
        spellings = (METRICS[key].label, *METRICS[key].printed)
        matches = [s for s in spellings if names is None or s in names]
        found = matches[0] if matches else None
        if found is None:
            raise KeyError(f"metric {key!r} ({', '.join(spellings)}) is not a column of {names}")
        out[found] = key
    return out


@dataclass(frozen=True)
class Family:
    """A metric family: Appendix A Table 7's dimension, the modules whose functions define its
    metrics and where the paper gives their formulas."""

    dimension: str
    modules: tuple[str, ...]
    section: str
    keys: tuple[str, ...]


# Every registered metric in exactly one family (tests/metrics/test_registry_families.py); the
# book's Table 7 page reads them here.
FAMILIES: tuple[Family, ...] = (
    Family("Text Quality", ("trace_crs.metrics.text",), "§3, App. J", ("bleu4", "rouge_l")),
    Family(
        "Rec. Quality",
        ("trace_crs.metrics.recommendation",),
        "§3, App. J, App. S",
        (
            "recall@1",
            "recall@3",
            "hit@1",
            "hit@3",
            "mrr",
            "mr_recall@1",
            "mr_recall@3",
            "mr_recall@1_alt_only",
            "mr_recall@3_alt_only",
        ),
    ),
    Family(
        "Grounding",
        ("trace_crs.metrics.grounding", "trace_crs.metrics.entailment"),
        "§3, App. J, App. L",
        ("gs", "cd", "pc", "cgs", "entailment", "cgs_ent"),
    ),
    Family(
        "Practical Value",
        ("trace_crs.metrics.practical",),
        "§3, App. E, App. J",
        ("spatial_coherence", "route_km", "price_alignment", "itinerary_diversity"),
    ),
    Family("Dialogue", ("trace_crs.metrics.dialogue",), "§3, App. J, App. N", ("tsr", "t2r", "rejection_recovery")),
)


def family(key: str) -> Family:
    """The family of metric ``key`` (KeyError for a key outside the registry)."""
    for fam in FAMILIES:
        if key in fam.keys:
            return fam
    raise KeyError(key)
