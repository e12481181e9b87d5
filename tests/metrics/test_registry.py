"""The metric registry carries each metric's metadata (STYLE "Metadata at the thing it describes")."""
import dataclasses
import inspect

import pytest

from trace_crs.config import ScoreConfig
from trace_crs.metrics import grounding, practical
from trace_crs.metrics import registry as r


def test_every_entry_is_complete():
    fields = {f.name for f in dataclasses.fields(ScoreConfig)}
    for key, m in r.METRICS.items():
        assert m.label and m.level in r.LEVELS and m.aggregation in r.AGGREGATIONS, key
        assert set(m.reads) <= fields, key
    labels = [m.label for m in r.METRICS.values()]
    assert len(labels) == len(set(labels)), "two metrics share a label"


def test_directions_hand_checked():
    """Lower is better only for the two costs: turns to the first hit (T2R) and route length."""
    assert {k for k, m in r.METRICS.items() if not m.higher_is_better} == {"t2r", "route_km"}
    assert r.higher_is_better("recall@1") and not r.higher_is_better("t2r")


def test_derived_views():
    assert r.ALT_ONLY == {"mr_recall@1_alt_only": "mr_recall@1", "mr_recall@3_alt_only": "mr_recall@3"}
    assert r.POOLED_RATIOS == {"rejection_recovery": ("recovery_hits", "recovery_episodes")}
    assert "mr_recall@1_alt_only" not in r.TURN_METRICS and "cgs" in r.TURN_METRICS
    assert r.DIALOGUE_METRICS[-3:] == ("tsr", "t2r", "rejection_recovery")


def test_defaults_come_from_score_config():
    cfg = ScoreConfig()
    assert r.defaults("cgs") == {"fuzzy_threshold": cfg.fuzzy_threshold, "pc_window": cfg.pc_window,
                                 "cd_gate": cfg.cd_gate, "pc_floor": cfg.pc_floor}
    assert r.defaults("spatial_coherence") == {"spatial_km": cfg.spatial_km}
    assert r.defaults("cd") == {}
    comp = inspect.signature(grounding.composite).parameters
    assert (comp["cd_gate"].default, comp["pc_floor"].default) == (cfg.cd_gate, cfg.pc_floor)
    assert inspect.signature(practical.spatial_coherence).parameters["max_km"].default == cfg.spatial_km


@pytest.mark.parametrize("keys, header, expected", [
    (("recall@1", "cd"), None, {"R@1": "recall@1", "CD": "cd"}),
    (("recall@1", "cd"), ("Baseline", "R@1", "CiteDensity"), {"R@1": "recall@1", "CiteDensity": "cd"}),
    (("entailment", "gs"), ("FuzzyGS", "EntailmentGS"), {"EntailmentGS": "entailment", "FuzzyGS": "gs"}),
    ((), ("R@1",), {}),
])
def test_columns(keys, header, expected):
    out = r.columns(keys, header)
    assert out == expected and list(out.values()) == list(keys)


def test_columns_names_a_missing_header():
    with pytest.raises(KeyError, match="'cd'.*CiteDensity"):
        r.columns(("cd",), ("R@1",))
    with pytest.raises(KeyError):
        r.columns(("no_such_metric",))


def test_label_and_slug():
    assert r.label("rejection_recovery") == "Recovery" and r.label("recall@1_open") == "recall@1_open"
    assert (r.slug("recall@1"), r.slug("bleu4"), r.slug("cd")) == ("r1", "bleu", "cd")


def test_bad_entry_is_refused():
    with pytest.raises(AssertionError):
        r.Metric("turn", None, "X")                      # no function and not alt-only
    with pytest.raises(AssertionError):
        r.Metric("dialogue", lambda db, cfg: db, "X", aggregation="pooled_ratio")   # no columns to pool
