"""How long ``make paper`` took on a fresh clone: the build's own step timings summarised into a
committed JSON file, so the book's Performance page shows it beside the other measurements.

Run it after a ``make PROFILE=<p> paper`` in a fresh clone (empty ``TRACE_CACHE_DIR`` and LM
cache, records replayed), pointing at that clone's results; the numbers come from
:func:`trace_crs.report.build_time.summary` (busy wall = the union of the steps' intervals) and,
when given, the ``/usr/bin/time -v`` log of the whole ``make``:

    python bench/bench_paper_build.py --clone /tmp/cold --profile default --time-log make.log \
        --conditions "fresh clone, empty caches, nothing else running" --out bench/results/paper_build.json

Nothing is timed here; the build timed itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_json
from trace_crs.report import build_time

TIME_FIELDS = {
    "wall": r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)",
    "user_s": r"User time \(seconds\): (\S+)",
    "system_s": r"System time \(seconds\): (\S+)",
    "max_rss_kb": r"Maximum resident set size \(kbytes\): (\d+)",
    "exit_status": r"Exit status: (\d+)",
}


def _seconds(clock: str) -> float:
    """``1:02:03`` / ``2:03.45`` as seconds."""
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60**i for i, p in enumerate(reversed(parts)))


def time_log(path: Path) -> dict[str, Any]:
    """The whole ``make``'s figures from a ``/usr/bin/time -v`` log (missing fields are left out)."""
    text = path.read_text(errors="replace")
    out: dict[str, Any] = {}
    for key, pattern in TIME_FIELDS.items():
        m = re.search(pattern, text)
        if m:
            out[key] = _seconds(m.group(1)) if key == "wall" else float(m.group(1))
    if "wall" in out:
        out["wall_s"] = out.pop("wall")
    return out


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clone", type=Path, required=True, help="the checkout the build ran in")
    p.add_argument("--profile", default="default")
    p.add_argument("--time-log", type=Path, help="/usr/bin/time -v output of the whole make")
    p.add_argument("--conditions", required=True, help="what else the machine ran, cache state")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    res = args.clone / "results" / args.profile
    s = build_time.summary([res])
    if not s.get("steps"):
        raise SystemExit(f"{res}/timings: no step timings (did make paper run there?)")
    slowest = sorted(build_time.steps([res]), key=lambda r: -float(r["seconds"]))[:5]
    commit = subprocess.run(["git", "-C", str(args.clone), "rev-parse", "HEAD"], capture_output=True, text=True)
    result = {
        "profile": args.profile,
        "commit": commit.stdout.strip()[:12],
        "date": s["last"].date().isoformat() if isinstance(s["last"], dt.datetime) else str(s["last"]),
        "machine": f"{os.cpu_count()} cores",
        "cpu": cpu_model(),
        "conditions": args.conditions,
        "steps": s["steps"],
        "failed": s["failed"],
        "one_build": s["one_build"],
        "busy_s": round(s["busy_s"], 1),
        "sum_s": round(s["sum_s"], 1),
        "cpu_s": round(s["cpu_s"], 1),
        "span_s": round(s["span_s"], 1),
        "per_stage_s": {k: round(v, 1) for k, v in s["per_stage"].items()},
        "slowest_steps": [{"step": r["step"], "seconds": round(float(r["seconds"]), 1)} for r in slowest],
        "lm_calls": {"replayed": s["lm_calls"]["replayed"], "computed": s["lm_calls"]["computed"]},
        "load_1min_end": round(os.getloadavg()[0], 2),
        **({"make": time_log(args.time_log)} if args.time_log else {}),
    }
    write_json(result, args.out, indent=1)
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
