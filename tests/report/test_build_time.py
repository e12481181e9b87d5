"""The Reproduce page's build time: stage sums, span and one-build detection from hand-made
timing files."""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from trace_crs.report import build_time


def _step(results: Path, name: str, step: str, seconds: float, finished: str, code: int = 0,
          build: str | None = "b1", earlier: list | None = None, lm: dict | None = None,
          cpu: float | None = None) -> None:
    folder = results / "timings"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"step": step, "seconds": seconds, "finished": finished, "returncode": code, "build": build}
    if lm is not None:
        record["lm_calls"] = lm
    if cpu is not None:
        record["cpu_seconds"] = cpu
    if earlier is not None:
        record["earlier_attempts"] = earlier
    (folder / f"{name}.json").write_text(json.dumps(record))


def test_one_build_from_nothing(tmp_path):
    setup, res = tmp_path / "setup", tmp_path / "res"
    _step(setup, "venv", "setup/venv", 300, "2026-11-26T10:05:00+00:00")          # 10:00 → 10:05
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00")                  # 10:05 → 10:06
    _step(res, "run-closed", "run/closed", 1200, "2026-11-26T10:26:00+00:00")       # 10:06 → 10:26
    _step(res, "run-open", "run/open", 600, "2026-11-26T10:20:00+00:00")            # 10:10 → 10:20 (-j2)
    _step(res, "nb", "notebook/t05", 30.5, "2026-11-26T10:30:00+00:00")             # 10:29:29.5 → 10:30
    s = build_time.summary([setup, res])
    assert s["steps"] == 5 and s["failed"] == 0 and s["one_build"]
    assert s["per_stage"] == {"setup": 300, "kb": 60, "run": 1800, "notebook": 30.5}
    assert list(s["per_stage"]) == ["setup", "kb", "run", "notebook"]
    assert s["sum_s"] == 2190.5 and s["span_s"] == 1800                             # 10:00 → 10:30
    assert s["busy_s"] == 26 * 60 + 30.5                     # 10:00 → 10:26 and 10:29:29.5 → 10:30
    text = build_time.markdown([setup, res], "default")
    assert "took 26 min 30 s" in text and "add up to 36 min 30 s" in text
    assert "30 min 00 s from the first" in text and "one build" in text


def test_steps_from_several_builds_are_said_so(tmp_path):
    res = tmp_path / "res"
    _step(res, "kb", "kb/build", 60, "2026-11-20T10:00:00+00:00", build="b0")
    _step(res, "nb", "notebook/t05", 7200, "2026-11-26T12:00:00+00:00", code=2)
    s = build_time.summary([res, tmp_path / "absent"])
    assert not s["one_build"] and s["builds"] == 2 and s["failed"] == 1 and s["sum_s"] == 7260
    text = build_time.markdown([res], "smoke")
    assert "2 h 01 min" in text and "come from 2 builds" in text and "1 recorded step" in text
    assert s["busy_s"] == 7260                                                     # six days apart


def test_close_steps_are_still_two_builds_and_unnamed_ones_prove_nothing(tmp_path):
    res = tmp_path / "res"
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:01:00+00:00", build="b0")
    _step(res, "run", "run/closed", 60, "2026-11-26T10:02:00+00:00", build="b1")   # a minute later
    assert not build_time.summary([res])["one_build"]
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:01:00+00:00", build=None)     # recorded before names
    s = build_time.summary([res])
    assert not s["one_build"] and s["builds"] == 1 and s["unnamed"]
    assert "cannot be shown to come from one build" in build_time.markdown([res], "smoke")


def test_earlier_attempts_count_in_the_sum(tmp_path):
    res = tmp_path / "res"
    killed = {"seconds": 1200, "finished": "2026-11-26T10:30:00+00:00", "returncode": None, "build": "b0"}
    failed = {"seconds": 60, "finished": "2026-11-26T11:01:00+00:00", "returncode": 1, "build": "b1"}
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:10:00+00:00", build="b0")
    _step(res, "run", "run/closed_llm", 900, "2026-11-26T11:20:00+00:00", build="b1", earlier=[killed, failed])
    s = build_time.summary([res])
    assert s["steps"] == 2 and s["failed"] == 0 and s["builds"] == 2
    assert s["per_stage"] == {"kb": 60, "run": 2160} and s["sum_s"] == 2220
    assert s["earlier_s"] == 1260 and s["earlier_attempts"] == 2 and s["resumed_steps"] == 1
    assert s["span_s"] == 71 * 60                                        # 10:09 (kb starts) → 11:20
    assert s["busy_s"] == 60 + 1200 + 60 + 900          # 10:09–10:10, 10:10–10:30, 11:00–11:01, 11:05–11:20
    text = build_time.markdown([res], "default")
    assert "took 37 min 00 s" in text and "21 min 00 s of 2 earlier attempt(s) at 1 step(s)" in text


def test_no_steps_yet_and_durations(tmp_path):
    assert "No step" in build_time.markdown([tmp_path], "smoke")
    assert [build_time.duration(x) for x in (38, 760, 3 * 3600 + 300)] == ["38 s", "12 min 40 s", "3 h 05 min"]


def test_cli_writes_only_on_change(tmp_path):
    _step(tmp_path / "t", "kb", "kb/build", 5, "2026-11-26T10:00:00+00:00")
    out = tmp_path / "book" / "build_time.md"
    assert build_time.main(["--profile", "smoke", "--results", str(tmp_path / "t"), "--out", str(out)]) == 0
    first = out.stat().st_mtime_ns
    build_time.main(["--profile", "smoke", "--results", str(tmp_path / "t"), "--out", str(out)])
    assert out.stat().st_mtime_ns == first and "took 5 s" in out.read_text()


def test_records_from_before_builds_were_named_are_one_unknown_not_many(tmp_path):
    folder = tmp_path / "res" / "timings"
    folder.mkdir(parents=True)
    for i, name in enumerate(("kb", "run")):                                        # no "build" key at all
        (folder / f"{name}.json").write_text(json.dumps({"step": f"{name}/x", "seconds": 5, "returncode": 0,
                                                          "finished": f"2026-11-26T10:0{i}:00+00:00"}))
    s = build_time.summary([tmp_path / "res"])
    assert s["builds"] == 0 and s["unnamed"] and not s["one_build"]
    assert "cannot be shown to come from one build" in build_time.markdown([tmp_path / "res"], "smoke")


def test_busy_seconds_is_the_union_of_the_intervals():
    t = lambda m: datetime(2026, 11, 26, 10, 0) + timedelta(minutes=m)           # noqa: E731
    assert build_time.busy_seconds([]) == 0
    assert build_time.busy_seconds([(t(0), t(10)), (t(2), t(5)), (t(8), t(12)), (t(30), t(31)), (t(31), t(33))]) == 15 * 60


def test_llm_calls_replayed_and_computed_are_summed_by_stage(tmp_path):
    res = tmp_path / "res"
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00")                  # no LLM: no count
    _step(res, "run-a", "run/closed_llm", 100, "2026-11-26T10:08:00+00:00", lm={"replayed": 90, "computed": 10})
    _step(res, "run-b", "run/open_llm", 50, "2026-11-26T10:09:00+00:00", lm={"replayed": 5, "computed": 0})
    _step(res, "judge", "judge-live", 30, "2026-11-26T10:10:00+00:00", lm={"replayed": 1200, "computed": 3})
    calls = build_time.summary([res])["lm_calls"]
    assert (calls["replayed"], calls["computed"], calls["steps"]) == (1295, 13, 3)
    assert calls["per_stage"] == {"run": {"replayed": 95, "computed": 10},
                                  "judge-live": {"replayed": 1200, "computed": 3}}
    text = build_time.markdown([res], "default")
    assert "replayed 1,295 calls" in text and "computed 13 that" in text and "run 95 / 10" in text


def test_no_llm_counts_are_said_so(tmp_path):
    _step(tmp_path, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00")
    assert "No recorded step made an LLM call" in build_time.markdown([tmp_path], "smoke")


def test_the_records_verify_report_is_said_or_its_absence(tmp_path):
    _step(tmp_path, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00")
    missing = build_time.markdown([tmp_path], "default", tmp_path / "default.verify.json")
    assert "have not been re-checked" in missing and "--sample 50" in missing
    report = {"sampled": 50, "identical": 40, "share_identical": 0.8, "same_text": 49, "model": "m", "seed": 42,
              "max_logprob_diff": 0.0123, "reasons": {"same model id, build and CPU features: x": 10}}
    path = tmp_path / "default.verify.json"
    path.write_text(json.dumps(report))
    text = build_time.markdown([tmp_path], "default", path)
    assert "recomputed 50 seeded records of `m` (seed 42): 40 identical" in text and "(80%)" in text
    assert "49 with the same text, log-probabilities moved by at most 0.0123" in text
    assert "10 × same model id, build and CPU features: x" in text
    assert "history-free" not in text                               # an old report has no such count
    report |= {"step": "run/closed_llm", "history_free": {"sampled": 30, "identical": 30}}
    path.write_text(json.dumps(report))
    text = build_time.markdown([tmp_path], "default", path)
    assert "records of step `run/closed_llm` of `m`" in text
    assert "Of the 30 sampled records made by the history-free local worker, 30 were identical." in text


def test_cpu_time_of_the_steps_that_recorded_it(tmp_path):
    res = tmp_path / "res"
    _step(res, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00", cpu=50.0)
    _step(res, "run-closed", "run/closed", 1200, "2026-11-26T10:26:00+00:00", cpu=2350.0,
          earlier=[{"seconds": 100, "finished": "2026-11-26T09:00:00+00:00", "returncode": None, "cpu_seconds": 99}])
    _step(res, "nb", "notebook/t05", 30, "2026-11-26T10:30:00+00:00")              # before steps counted CPU
    s = build_time.summary([res])
    assert (s["cpu_s"], s["cpu_steps"]) == (2400.0, 2)                 # finishing attempts only: 50 + 2350
    text = build_time.cpu_sentence(s, cores=2)
    assert "40 min 00 s of CPU time (2 of the 3 steps recorded it)" in text and "at least 20 min 00 s" in text
    assert "of CPU time" in build_time.markdown([res], "default")
    old = tmp_path / "old"
    _step(old, "kb", "kb/build", 60, "2026-11-26T10:06:00+00:00")                  # no step recorded its CPU
    assert build_time.summary([old])["cpu_steps"] == 0 and "of CPU time" not in build_time.markdown([old], "default")
