"""The run selection shared by evaluate and converse (runner/selection.py): one set of checks."""
from __future__ import annotations

import pytest

from trace_crs.errors import UsageError
from trace_crs.live.run import LiveConfig
from trace_crs.runner.run import RunConfig


@pytest.mark.parametrize("cls, what", [(RunConfig, "run config"), (LiveConfig, "converse config")])
@pytest.mark.parametrize("field, value, rule", [("pool", "64", "one of closed, 16, 32, open"),
                                                ("subset", 0, ">= 1"), ("seed", -1, ">= 0"),
                                                ("prefilter", "bm99", "one of"), ("lm", "x", "a mapping")])
def test_shared_fields_checked_alike(cls, what, field, value, rule):
    with pytest.raises(UsageError, match=f"^{what}: {field}={value!r} must be {rule}"):
        cls(**{field: value})


def test_own_fields_and_defaults():
    with pytest.raises(UsageError, match="run config: chunk_size=0"):
        RunConfig(chunk_size=0)
    with pytest.raises(UsageError, match="converse config: max_turns=0"):
        LiveConfig(max_turns=0)
    assert (RunConfig().baselines, LiveConfig().baselines) == ("all", "non-llm")
