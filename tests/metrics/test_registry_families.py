"""Every registered metric belongs to exactly one family (Appendix A Table 7's dimensions)."""

from __future__ import annotations

import importlib.util

import pytest

from trace_crs.metrics import registry


def test_every_metric_in_exactly_one_family():
    keys = [k for fam in registry.FAMILIES for k in fam.keys]
    assert sorted(keys) == sorted(registry.METRICS)
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("fam", registry.FAMILIES, ids=lambda f: f.dimension)
def test_family_modules_exist(fam):
    assert all(importlib.util.find_spec(m) is not None for m in fam.modules)


def test_family_lookup():
    assert registry.family("cgs").dimension == "Grounding"
    assert registry.family("t2r").dimension == "Dialogue"
    with pytest.raises(KeyError):
        registry.family("no_such_metric")
