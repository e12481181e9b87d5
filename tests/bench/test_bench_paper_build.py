"""bench_paper_build.py reads the whole make's figures from a `/usr/bin/time -v` log."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_paper_build as bpb  # noqa: E402

LOG = """make: Nothing to be done.
\tCommand being timed: "make PROFILE=default paper"
\tUser time (seconds): 2400.50
\tSystem time (seconds): 120.25
\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03
\tMaximum resident set size (kbytes): 2048
\tExit status: 0
"""


def test_time_log_fields(tmp_path):
    (tmp_path / "log").write_text(LOG)
    got = bpb.time_log(tmp_path / "log")
    assert got == {"user_s": 2400.5, "system_s": 120.25, "max_rss_kb": 2048.0, "exit_status": 0.0,
                   "wall_s": 3723.0}  # 1 h 2 min 3 s by hand


def test_short_clock_reads_minutes_and_seconds():
    assert bpb._seconds("2:03.5") == 123.5
