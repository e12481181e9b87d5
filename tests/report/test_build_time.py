"""The Reproduce page's build time: stage sums, span and one-build detection from hand-made
timing files."""
from __future__ import annotations

import json
from pathlib import Path

from trace_crs.report import build_time


def _step(results: Path, name: str, step: str, seconds: float, finished: str, code: int = 0) -> None:
    folder = results / "timings"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"step": step, "seconds": seconds, "finished": finished,
                                                      "returncode": code}))


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
    text = build_time.markdown([setup, res], "default")
    assert "took 36 min 30 s" in text and "30 min 00 s from the first" in text and "one build" in text


def test_steps_from_several_builds_are_said_so(tmp_path):
    res = tmp_path / "res"
    _step(res, "kb", "kb/build", 60, "2026-11-20T10:00:00+00:00")
    _step(res, "nb", "notebook/t05", 7200, "2026-11-26T12:00:00+00:00", code=2)
    s = build_time.summary([res, tmp_path / "absent"])
    assert not s["one_build"] and s["failed"] == 1 and s["sum_s"] == 7260
    text = build_time.markdown([res], "smoke")
    assert "2 h 01 min" in text and "more than one build" in text and "1 recorded step" in text


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
