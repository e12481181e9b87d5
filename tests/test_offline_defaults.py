"""Offline defaults set by ``import trace_crs`` (README "Offline"): no network at start-up."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")
KEYS = ("LITELLM_LOCAL_MODEL_COST_MAP", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
PROBE = "import json, os, trace_crs; print(json.dumps({k: os.environ.get(k) for k in %r}))" % (KEYS,)


def _run(extra: dict[str, str]) -> dict[str, str | None]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env.update({"PYTHONPATH": SRC, **extra})
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(out.stdout)


def test_clean_env_gets_offline_defaults() -> None:
    assert _run({}) == {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1",
                        "TRANSFORMERS_OFFLINE": "1"}


@pytest.mark.parametrize("key,value", [("HF_HUB_OFFLINE", "0"), ("LITELLM_LOCAL_MODEL_COST_MAP", "False"),
                                       ("TRANSFORMERS_OFFLINE", "0")])
def test_explicit_user_value_wins(key: str, value: str) -> None:
    got = _run({key: value})
    assert got[key] == value
    assert all(got[k] is not None for k in KEYS)


def test_litellm_imported_after_trace_crs_uses_local_cost_map() -> None:
    """litellm reads the variable at import time; the CLI entry point imports trace_crs first."""
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PYTHONPATH"] = SRC
    code = "import trace_crs, litellm, os; print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "True"
    assert "cost map" not in out.stderr.lower()
