"""How long the build you are reading took, from its own step timings (the Reproduce page, ARCHITECTURE §9).

Every step of ``make paper`` writes one JSON file when it finishes (``book/tools/pipeline.py
timed``: ``step, seconds, finished, returncode, build, earlier_attempts``, read by :func:`trace_crs.report.provenance.timings`):
the set-up steps (virtual environment, llama.cpp build, model weights) to
``results/setup/timings/``, the profile's steps (KB, dialogues, runs, scores, sensitivity
analyses, notebooks) to ``results/<profile>/timings/``.
:func:`summary` groups them by stage (the step name's first part); :func:`markdown` is the
paragraph the Reproduce page includes (``book/content/build_time.md``, written by
``python -m trace_crs.report.build_time`` before the book is built).  Four measures, because
they differ:

* **busy wall time** — the time during which at least one recorded step was running (the
  union of the steps' intervals): the headline. Steps that ``make -j2`` ran side by side count
  once, and the time between builds (an interrupted build resumed later) not at all;
* **sum of step wall times** — what the steps took one by one (more than the busy time when
  steps ran side by side, each slower than alone);
* **CPU time** — the CPU seconds of the steps' processes (where recorded): what the build
  costs whatever else the machine runs (a lower bound for the busy time: CPU time / cores);
* **span** — from the earliest recorded step's start to the latest's end: more than the busy
  time when anything else ran between steps.

Each record names its build (``TRACE_BUILD``, one per top-level ``make``): when the steps were
last run by different builds (an incremental rebuild keeps the older steps' files) the paragraph
says so. A step that was killed or failed and then re-run keeps its earlier attempts' time
(``earlier_attempts``, from the heartbeat of ``timed``), and all three measures include it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.lm.config import usable_cores
from trace_crs.report.provenance import timings

STAGES = ("setup", "kb", "dialogues", "run", "score", "sensitivity", "abstention", "live", "notebook")


def steps(results_dirs: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Every recorded attempt of every step of ``results_dirs`` (their ``timings/``): the finishing
    one and the earlier ones (``earlier: True``), with ``stage``, ``start`` and ``end`` (datetimes),
    by start."""
    out = []
    for folder in results_dirs:
        for rec in timings(folder).to_dict("records"):
            attempts = [{**a, "earlier": True} for a in rec["earlier_attempts"]] + [{**rec, "earlier": False}]
            for att in attempts:
                end = datetime.fromisoformat(att["finished"])
                out.append(
                    {
                        **att,
                        "step": rec["step"],
                        "stage": rec["step"].split("/")[0],
                        "end": end,
                        "start": end - timedelta(seconds=float(att["seconds"])),
                    }
                )
    return sorted(out, key=lambda r: (r["start"], r["step"]))


def summary(results_dirs: Sequence[str | Path]) -> dict[str, Any]:
    """Seconds per stage (every attempt), their sum, the earlier attempts' share, the span, the
    window and the builds that made the steps (``one_build`` only when every record names the
    same one)."""
    recs = steps(results_dirs)
    if not recs:
        return {"steps": 0}
    per_stage: dict[str, float] = {}
    for r in recs:
        per_stage[r["stage"]] = per_stage.get(r["stage"], 0.0) + float(r["seconds"])
    earlier = [r for r in recs if r["earlier"]]
    builds = {r.get("build") for r in recs}
    first, last = min(r["start"] for r in recs), max(r["end"] for r in recs)
    return {
        "steps": len(recs) - len(earlier),
        "failed": sum(1 for r in recs if not r["earlier"] and r.get("returncode", 0) != 0),
        "per_stage": dict(sorted(per_stage.items(), key=lambda kv: (_order(kv[0]), kv[0]))),
        "sum_s": sum(per_stage.values()),
        "earlier_s": sum(float(r["seconds"]) for r in earlier),
        "earlier_attempts": len(earlier),
        "resumed_steps": len({r["step"] for r in earlier}),
        "span_s": (last - first).total_seconds(),
        "busy_s": busy_seconds([(r["start"], r["end"]) for r in recs]),
        "first": first,
        "last": last,
        "builds": len(builds - {None}),
        "unnamed": None in builds,
        "one_build": len(builds) == 1 and None not in builds,
        "lm_calls": lm_calls([r for r in recs if not r["earlier"]]),
        **cpu_time([r for r in recs if not r["earlier"]]),
    }


def cpu_time(recs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``cpu_s``: the CPU seconds of the finishing attempts that recorded them (``book/tools/pipeline.py
    timed``: the step's processes and their reaped descendants), over ``cpu_steps`` of them."""
    counted = [float(r["cpu_seconds"]) for r in recs if pd.notna(r.get("cpu_seconds"))]
    return {"cpu_s": sum(counted), "cpu_steps": len(counted)}


def lm_calls(recs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The finishing attempts' LLM look-ups in the records (``book/tools/pipeline.py timed``):
    ``replayed`` and ``computed`` summed, and ``steps``: the steps that made any, by stage."""
    counted = [r for r in recs if isinstance(r.get("lm_calls"), dict)]
    per_stage: dict[str, dict[str, int]] = {}
    for r in counted:
        stage = per_stage.setdefault(r["stage"], {"replayed": 0, "computed": 0})
        for k in stage:
            stage[k] += int(r["lm_calls"].get(k, 0))
    return {
        "replayed": sum(s["replayed"] for s in per_stage.values()),
        "computed": sum(s["computed"] for s in per_stage.values()),
        "steps": len(counted),
        "per_stage": dict(sorted(per_stage.items(), key=lambda kv: (_order(kv[0]), kv[0]))),
    }


def busy_seconds(intervals: Sequence[tuple[datetime, datetime]]) -> float:
    """Seconds during which at least one interval is open (the union's length): a build's wall
    time with ``make -j2``'s overlaps counted once and the gaps between builds not at all."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + (end - start).total_seconds(), end
        elif end > reach:
            total, reach = total + (end - reach).total_seconds(), end
    return total


def _order(stage: str) -> int:
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


def duration(seconds: float) -> str:
    """``3h 05min``, ``12 min 40 s`` or ``38 s``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def markdown(results_dirs: Sequence[str | Path], profile: str, verify: str | Path | None = None) -> str:
    """The Reproduce page's paragraph on this build's measured time (and, with ``verify``, what
    ``trace-crs lm records verify --out`` found when it recomputed a sample of the records)."""
    s = summary(results_dirs)
    tail = f"\n{verify_sentence(verify, profile)}\n" if verify is not None else ""
    if not s["steps"]:
        return f"No step of the `{profile}` build has recorded its time yet.\n{tail}"
    stages = ", ".join(f"{name} {duration(sec)}" for name, sec in s["per_stage"].items())
    when = f"{s['first']:%Y-%m-%d %H:%M} to {s['last']:%Y-%m-%d %H:%M} UTC"
    lines = [
        f"**This build (`PROFILE={profile}`) took {duration(s['busy_s'])}** of wall time with at "
        f"least one of its {s['steps']} recorded steps running, measured by the build itself "
        f"(`results/setup/timings/`, `results/{profile}/timings/`). The steps' own times add up "
        f"to {duration(s['sum_s'])} ({stages}); more than the wall time when `make -j2` runs "
        "steps side by side, each slower than alone."
    ]
    if s["earlier_attempts"]:
        lines.append(
            f"This includes {duration(s['earlier_s'])} of {s['earlier_attempts']} earlier "
            f"attempt(s) at {s['resumed_steps']} step(s) that were killed or failed and then "
            "re-run (a resumed LLM run takes the answers it already had from the LM cache)."
        )
    if s["one_build"]:
        lines.append(
            f"They ran in one build, from {when}: {duration(s['span_s'])} from the first "
            "step's start to the last step's end (more than the busy time when something else "
            "ran between steps, such as the tests of `make test`)."
        )
    else:
        if s["builds"] > 1:
            made_by = f"come from {s['builds']} builds" + (" and from records that name none" if s["unnamed"] else "")
        else:
            made_by = "cannot be shown to come from one build (some records name none)"
        lines.append(
            f"The steps {made_by}; they were recorded from {when}. A step whose inputs did "
            "not change keeps the time of the build that last ran it, and the time between "
            "builds is not counted."
        )
    if s["cpu_steps"]:
        lines.append(cpu_sentence(s))
    if s["failed"]:
        lines.append(f"{s['failed']} recorded step(s) exited with an error in their last run.")
    lines.append(lm_sentence(s["lm_calls"]))
    return " ".join(lines) + "\n" + tail


def cpu_sentence(s: dict[str, Any], cores: int | None = None) -> str:
    """The steps' CPU time (their last runs: a killed attempt leaves only its wall time): what the
    build cost whatever else the machine was running (its wall time grows with the load; on
    ``cores`` cores — default: those this process may use — the busy wall time is at least the CPU
    time / ``cores``)."""
    cores = cores or usable_cores()
    some = "" if s["cpu_steps"] == s["steps"] else f" ({s['cpu_steps']} of the {s['steps']} steps recorded it)"
    return (
        f"Their last runs used {duration(s['cpu_s'])} of CPU time{some}: on a machine shared with other work the "
        f"wall time grows, the CPU time does not; on this machine's {cores} core(s) the busy wall time is at least "
        f"{duration(s['cpu_s'] / cores)}."
    )


def verify_sentence(path: str | Path, profile: str) -> str:
    """What the last ``lm records verify`` of the profile's records found (or that none ran)."""
    path = Path(path)
    if not path.is_file():
        return (
            f"The `{profile}` LM records have not been re-checked here: `trace-crs lm records verify --dir "
            f"data/lm-records/{profile} --sample 50 --out {path}` recomputes a seeded sample."
        )
    r = json.loads(path.read_text())
    if not r.get("sampled"):
        return f"`lm records verify` sampled no record ({path})."
    reasons = "; ".join(f"{n} × {why}" for why, n in (r.get("reasons") or {}).items()) or "none"
    moved = r.get("max_logprob_diff")
    shift = f", log-probabilities moved by at most {moved:.4g}" if moved is not None else ""
    of_step = f" of step `{r['step']}`" if r.get("step") else ""
    fresh = r.get("history_free") or {}
    worker = (
        f" Of the {fresh['sampled']} sampled records made by the history-free local worker, {fresh['identical']} "
        "were identical."
        if fresh.get("sampled")
        else ""
    )
    return (
        f"**Do the records still hold?** `trace-crs lm records verify` recomputed {r['sampled']} seeded "
        f"records{of_step} of `{r['model']}` (seed {r['seed']}): {r['identical']} identical to the record to the "
        f"last digit ({r['share_identical']:.0%}); {r.get('same_text', r['identical'])} with the same "
        f"text{shift}. Why the others differ: {reasons}.{worker} Report: `{path}`."
    )


def lm_sentence(calls: dict[str, Any]) -> str:
    """What the build's LLM steps took from the committed records and what they computed."""
    if not calls["steps"]:
        return (
            "No recorded step made an LLM call through the LM records (records off, "
            "`LM_RECORDS=off`, or steps timed before the calls were counted)."
        )
    stages = ", ".join(f"{k} {v['replayed']:,} / {v['computed']:,}" for k, v in calls["per_stage"].items())
    return (
        f"Its {calls['steps']} LLM step(s) replayed {calls['replayed']:,} calls from the LM records "
        f"(`data/lm-records/<profile>/`) and computed {calls['computed']:,} that the records did not "
        f"hold (replayed / computed by stage: {stages})."
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trace_crs.report.build_time", description=__doc__.splitlines()[0])
    p.add_argument("--profile", required=True)
    p.add_argument("--results", nargs="+", required=True, help="results folders whose timings/ to read")
    p.add_argument("--out", required=True, help="markdown file (written only when its text changes)")
    p.add_argument("--verify", help="a `trace-crs lm records verify --out` report of the profile's records")
    args = p.parse_args(argv)
    out, text = Path(args.out), markdown(args.results, args.profile, args.verify)
    if not out.exists() or out.read_text() != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
