"""An LLM page's "replayed or computed" sentence, from hand-made timing records."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_crs.report import llm_calls


def _step(results: Path, name: str, step: str, lm: dict | None) -> None:
    folder = results / "timings"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"step": step, "seconds": 1.0, "finished": "2026-12-02T10:00:00+00:00", "returncode": 0, "build": "b"}
    if lm is not None:
        record["lm_calls"] = lm
    (folder / f"{name}.json").write_text(json.dumps(record))


def test_counts_sum_the_page_steps_only(tmp_path):
    _step(tmp_path, "run-closed_llm", "run/closed_llm", {"replayed": 100, "computed": 20})
    _step(tmp_path, "score-a", "score/closed_llm/dst", {"replayed": 7, "computed": 0})
    _step(tmp_path, "score-b", "score/closed_llm/mrs", None)                       # no look-up
    _step(tmp_path, "run-open_llm", "run/open_llm", {"replayed": 999, "computed": 999})  # another page's
    c = llm_calls.counts(tmp_path, llm_calls.PAGE_STEPS["t06_per_axis"])
    assert (c["replayed"], c["computed"], c["counted"], c["uncounted"]) == (107, 20, 2, 1)
    text = llm_calls.note(tmp_path, "t06_per_axis")
    assert "127 (107 replayed from the LM records and 20 computed by the model)" in text
    assert "1 more step(s)" in text


def test_all_replayed_all_computed_none_and_not_run(tmp_path):
    _step(tmp_path, "jv", "judge-validity", {"replayed": 4800, "computed": 0})
    assert "4,800 (all replayed from the LM records)" in llm_calls.note(tmp_path, "judge_validity")
    _step(tmp_path, "jl", "judge-live", {"replayed": 0, "computed": 12})
    assert "12 (all computed by the model in this build)" in llm_calls.note(tmp_path, "core_fig9_factor_tau")
    _step(tmp_path, "ab", "abstention-llm", None)
    assert "made no look-up" in llm_calls.note(tmp_path, "travelbench_abstention")
    assert "has run" in llm_calls.note(tmp_path / "nothing", "t25_open_set")
    with pytest.raises(KeyError):
        llm_calls.note(tmp_path, "t03_dataset")


def test_a_prefix_needs_its_slash():
    assert llm_calls.matches("score/closed/popularity", ("score/closed/",))
    assert not llm_calls.matches("score/closed_llm/dst", ("score/closed/",))
    assert not llm_calls.matches("judge-live_ask", ("judge-live",))
