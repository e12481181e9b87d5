"""Whether an LLM page's model calls were replayed from the committed LM records or computed in
this build (issue 45: "each LLM page names … whether its calls were replayed or computed").

Every step of ``make paper`` writes a timing record (``book/tools/pipeline.py timed``); a step
that looked up the LM records carries ``lm_calls = {"replayed", "computed"}``, summed over its
processes (:mod:`trace_crs.lm.records`, ``TRACE_LM_TALLY``). :data:`PAGE_STEPS` declares once which
steps make each LLM page's calls (a step name or a prefix ending in ``/``); :func:`note` is the
sentence the page prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trace_crs.report.provenance import timings

# page stem -> the pipeline steps whose LLM calls the page shows (mk/*.mk step names)
PAGE_STEPS: dict[str, tuple[str, ...]] = {
    "t05_headline": ("run/closed_llm", "score/closed_llm/", "score/closed/"),
    "t06_per_axis": ("run/closed_llm", "score/closed_llm/"),
    "t25_open_set": ("run/open_llm", "run/open_llm_dense", "score/open_llm/", "score/open_llm_dense/"),
    "t29_judge": ("score/closed/", "score/closed_llm/"),
    "t28_cross_judge": ("judge-likert/",),
    "core_judge": ("live_llm", "live_llm_noask", "judge-live", "judge-live_ask", "judge-live_llm_noask"),
    "core_fig5_debate_agreement": ("judge-live",),
    "core_fig9_factor_tau": ("judge-live",),
    "travelbench_abstention": ("abstention-llm",),
    "judge_validity": ("judge-validity",),
}


def matches(step: str, patterns: Sequence[str]) -> bool:
    """``step`` is one of ``patterns`` or starts with one that ends in ``/``."""
    return any(step == p or (p.endswith("/") and step.startswith(p)) for p in patterns)


def counts(results_dir: str | Path, patterns: Sequence[str]) -> dict[str, Any]:
    """``{"replayed", "computed", "counted", "uncounted", "steps"}`` over the recorded steps of
    ``results_dir`` matching ``patterns``: ``counted`` steps carry ``lm_calls``; ``uncounted``
    ones made no look-up or were timed before steps counted them."""
    frame = timings(results_dir)
    rows = [r for r in frame.to_dict("records") if matches(str(r["step"]), patterns)]
    counted = [r for r in rows if isinstance(r.get("lm_calls"), dict)]
    return {
        "replayed": sum(int(r["lm_calls"].get("replayed", 0)) for r in counted),
        "computed": sum(int(r["lm_calls"].get("computed", 0)) for r in counted),
        "counted": len(counted),
        "uncounted": len(rows) - len(counted),
        "steps": sorted(str(r["step"]) for r in rows),
    }


def note(results_dir: str | Path, page: str) -> str:
    """The page's sentence on where its LLM calls came from (KeyError for a page not declared)."""
    c = counts(results_dir, PAGE_STEPS[page])
    if not c["steps"]:
        return "LLM calls: none of this page's LLM steps has run in this build."
    if not c["counted"]:
        return (
            f"LLM calls: the {len(c['steps'])} step(s) behind this page made no look-up in the LM records "
            "(records off, `LM_RECORDS=off`, or steps timed before look-ups were counted)."
        )
    total = c["replayed"] + c["computed"]
    source = (
        "all replayed from the LM records"
        if not c["computed"]
        else "all computed by the model in this build"
        if not c["replayed"]
        else f"{c['replayed']:,} replayed from the LM records and {c['computed']:,} computed by the model"
    )
    rest = f"; {c['uncounted']} more step(s) made none or were not counted" if c["uncounted"] else ""
    return (
        f"LLM calls behind this page: {total:,} ({source}), in {c['counted']} step(s) of this build{rest} "
        "(Reproduce page, `data/lm-records/<profile>/`)."
    )
