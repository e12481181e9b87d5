"""Two leaks found by the hostile probe: ``evaluate(cache_dir=…)`` left ``TRACE_CACHE_DIR`` set
in the caller's process, and ``stats diagnose --run`` (a run *name*) was guarded as an input path
(it is a run under ``--results``:
trace_crs.cli.io_paths.RUN_NAME_FLAGS)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from trace_crs.cache import CACHE_ENV
from trace_crs.cli import INPUT_FLAGS, OTHER_FLAGS, build_parser
from trace_crs.cli.io_paths import RUN_NAME_FLAGS, named_inputs
from trace_crs.runner.run import RunConfig, evaluate


@pytest.mark.parametrize("before", [None, "/somewhere/else"])
def test_evaluate_cache_dir_leaves_the_environment_as_found(before, corpus, tmp_path, monkeypatch):
    kb, dialogues = corpus
    if before is None:
        monkeypatch.delenv(CACHE_ENV, raising=False)
    else:
        monkeypatch.setenv(CACHE_ENV, before)
    cfg = RunConfig(kb=str(kb), dialogues=str(dialogues), baselines="popularity")
    manifest = evaluate(cfg, tmp_path / "run", workers=1, progress=False, cache_dir=tmp_path / "cache")
    assert manifest["complete"] is True
    assert os.environ.get(CACHE_ENV) == before


def test_stats_diagnose_run_is_a_name_not_an_input():
    args = build_parser().parse_args(["stats", "diagnose", "--results", "r", "--run", "closed", "--out", "o.parquet"])
    assert args.run_name == "closed" and not hasattr(args, "run")
    assert "run_name" in RUN_NAME_FLAGS and "run_name" not in INPUT_FLAGS and "run_name" not in OTHER_FLAGS
    # the guard reads it as the run under --results, not as a path "closed" in the working directory
    assert named_inputs(args)[0] == Path("r") / "runs" / "closed"
