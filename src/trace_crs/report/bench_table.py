"""The measured speed rows of ``make bench`` (offline LLM speed, parallel slots, prompt-lookup
drafts, native llama.cpp build, the default KB build, the prefill/decode profile), rendered from
the benchmarks' JSON files: numbers are read, never typed.  A missing file gives a "not run" row.

The book's Performance page shows :func:`frame` of the committed results (``bench/results/``);
``bench/measured_table.py`` prints :func:`block` (or writes it between its markers in a file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.report.bench_layout_rows import choice_layout_row, choice_replies_row, fit_layout_row, prompt_layout_row

BEGIN, END = "<!-- bench:llm-speed:begin -->", "<!-- bench:llm-speed:end -->"


def _load(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.is_file() else None


def judge_row(
    d: dict[str, Any] | None,
    after: str = "",
    script: str = "bench_judge_core.py",
    recheck: dict[str, Any] | None = None,
) -> str:
    """The CoRE judge, the paper's per-factor configuration ÷ the arm after (default: the book's
    logprob judge), on warm transcripts: model seconds, prompt tokens evaluated per transcript ÷
    the conversation log's own tokens, and records across worker counts (``recheck``: a later
    ``--workers-only`` run of the same check, shown beside it)."""
    if d is None or "summary" not in d:  # absent, or written by the script before its warm/cold split
        return f"| CoRE judge per transcript (`{script}`){': ' + after if after else ''} | not run | ≥ 3× |"
    b, a = d["summary"]["before"], d["summary"]["after"]
    what = (
        f"CoRE judge per warm transcript (`{script}`): `{d['before_mode']}` ÷ `{d['after_mode']}`"
        f"{' (' + after + ')' if after else ''}; {d['weights']}, {d['threads']} thread(s), "
        f"{d['n']} transcripts (the first warms the worker), {d['repeats']} run(s) per arm ({d.get('date', '')})"
    )
    ratio = d.get("warm_model_s_before_over_after")
    workers = d.get("workers")
    same = (
        f"; records with {workers['servers']} servers: {workers['records_equal']} of {workers['records_compared']} identical"
        if workers
        else ""
    )
    if recheck and recheck.get("workers"):
        w = recheck["workers"]
        same += (
            f"; re-checked {recheck['date']} (commit {recheck['commit']}, `--workers-only`): {w['records_equal']} of "
            f"{w['records_compared']} identical with {w['servers']} servers"
        )
    measured = (
        f"model s {b['warm']['model_s']:.1f} ÷ {a['warm']['model_s']:.1f} = **{ratio:.2f}×**; evaluated prompt tokens ÷ "
        f"the log's tokens {b['warm_evaluated_over_log_tokens']:.2f} vs **{a['warm_evaluated_over_log_tokens']:.2f}**; "
        f"{d['ratings_equal']} of {d['ratings_compared']} ratings equal across arms{same}"
        if ratio is not None
        else "no warm transcript"
    )
    return f"| {what} | {measured} | ≥ 3× model s; ≤ 1.5× log tokens |"


def differing(per_config: dict[str, list[int]]) -> str:
    """``{"pool": [0], "slots": [7, 6]}`` as ``pool 0, slots 7 and 6`` (one count per later run)."""
    return "; ".join(f"{name} {' and '.join(map(str, counts))}" for name, counts in per_config.items())


def throughput_row(d: dict[str, Any] | None, arm: str = "slots", after: str = "parallel slots") -> str:
    """LLM Zero-Shot turns per minute of configuration ``arm`` over the first (reference) configuration."""
    what = f"LLM Zero-Shot turns per minute (`bench_lm_throughput.py`): {after} ÷ the two-process pool"
    if d is None or arm not in d.get("configs", {}):
        return f"| {what} | not run | ≥ 2× |"
    # the reference is the run's first configuration, named in its ratio keys (the JSON's keys are sorted)
    over = [key.split("_over_", 1)[1] for key in d["ratios"] if key.startswith(f"{arm}_over_")]
    first = over[0] if over else next(iter(d["configs"]))
    ratio = d["ratios"].get(f"{arm}_over_{first}", {}).get("turns_per_s")
    loads = [run["load_1min"] for c in d["configs"] for run in d[c]["runs"]]
    slots = f", {d['n_slots']} slots" if arm == "slots" else ""
    return (
        f"| {what}; {d['weights']}, {d['subset']} dialogues, {d['threads']} threads{slots}, "
        f"n = {len(d[first]['runs'])} run(s) each, 1-min load {min(loads)}–{max(loads)} ({d['date']}) | "
        f"{60 * d[arm]['median_turns_per_s']:.2f} ÷ "
        f"{60 * d[first]['median_turns_per_s']:.2f} turns/min = **{ratio}×**; records differing from the first run: "
        f"{differing(d['differing_records'])} of {d[first]['runs'][0]['turns']} | ≥ 2× |"
    )


def slots_row(d: dict[str, Any] | None) -> str:
    what = "Replies differing from the one-sequence worker's, requests sent concurrently (`bench_batch_slots.py`)"
    if d is None:
        return f"| {what} | not run | 0 |"
    arms = "; ".join(
        f"{name}: {', '.join(str(r['differing_replies']) for r in runs)} of {d['requests']} "
        f"(messages {', '.join(str(r['differing_messages']) for r in runs)})"
        for name, runs in sorted(d["arms"].items())
    )
    return (
        f"| {what}; {d['weights']}, {d['slots']} slots, n = {d['repeats']} run(s) per arm, 1-min load "
        f"{d['load_1min_start']}–{d['load_1min_end']} ({d['date']}) | {arms} | 0 |"
    )


def kb_row(d: dict[str, Any] | None) -> str:
    what = "`trace-crs kb build` at its default size, one process (`bench_kb.py`)"
    if d is None or "cli_build_seconds" not in d:
        return f"| {what} | not run | ≤ 60 s |"
    verdict = "within" if d["cli_within_budget"] else "**over**"
    return (
        f"| {what}, 1-min load {d['cli_load_1min']} | {d['cli_build_seconds']:.1f} s ({verdict} the "
        f"{d['cli_budget_seconds']:.0f} s budget) | ≤ 60 s |"
    )


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def paper_build_row(d: dict[str, Any] | None) -> str:
    """``make paper`` on a fresh clone (``bench_paper_build.py``): busy wall against issue 45's 45 minutes."""
    what = "`make paper` on a fresh clone, LM records replayed (`bench_paper_build.py`)"
    if d is None:
        return f"| {what} | not run | ≤ 45 min busy wall on 2 cores |"
    slowest = ", ".join(f"{r['step']} {_minutes(r['seconds'])}" for r in d["slowest_steps"][:3])
    make = d.get("make", {})
    whole = f"; the whole `make`: {_minutes(make['wall_s'])} wall" if "wall_s" in make else ""
    return (
        f"| {what}; profile `{d['profile']}`, commit {d['commit']}, {d['machine']} ({d['cpu']}), {d['conditions']} "
        f"({d['date']}) | busy wall **{_minutes(d['busy_s'])}**{whole}; CPU {_minutes(d['cpu_s'])}; {d['steps']} steps, "
        f"{d['failed']} failed; LM calls replayed {d['lm_calls']['replayed']}, computed {d['lm_calls']['computed']}; "
        f"slowest: {slowest} | ≤ 45 min busy wall on 2 cores |"
    )


def profile_rows(d: dict[str, Any] | None) -> list[str]:
    if d is None:
        return ["| LM profile per judge mode and LLM baseline (`bench_lm_profile.py`) | not run | |"]
    rows = []
    for kind, items in (("judge", d.get("modes", {})), ("baseline", d.get("baselines", {}))):
        for name, p in items.items():
            label = f"profile, {kind} `{name}` ({d['weights']}"
            label += f", {p['dialogues']} dialogue(s))" if "dialogues" in p else ", one transcript)"
            if "error" in p:
                rows.append(f"| {label} | {p['error'][:120]} | |")
                continue
            rows.append(
                f"| {label} | {p['calls']} calls; prompt {p['prompt_tokens']} tokens, prefill (evaluated) "
                f"{p['prefill_tokens']}, decode {p['decode_tokens']}; {p['prefill_s']:.0f} s prefill vs "
                f"{p['decode_s']:.0f} s decode; {p['hit_max_tokens']} replies at `max_tokens`; load "
                f"{p['load_1min']} | |"
            )
    return rows


def llama_build_row(d: dict[str, Any] | None) -> str:
    what = "Native llama.cpp build ÷ portable (`bench_llama_build.py`, `make llama-native`): tokens per CPU-second"
    if d is None:
        return f"| {what} | not run | |"
    r, p, n = d["native_over_portable"], d["portable"], d["native"]
    return (
        f"| {what}; {d['model']}, {d['n_prefill']} prompt tokens then {d['n_decode']} decoded, 1 thread, "
        f"n = {d['reps']} alternating pair(s), 1-min load {d['load_avg'][0]:.1f} at the end ({d['date']}) | "
        f"prompt processing {n['prefill_tps_median']:.1f} vs {p['prefill_tps_median']:.1f} tokens/s, "
        f"**{r['prefill']['median']:.2f}×** (pairs {r['prefill']['min']:.2f}–{r['prefill']['max']:.2f}); decoding "
        f"**{r['decode']['median']:.2f}×** ({r['decode']['min']:.2f}–{r['decode']['max']:.2f}); same greedy "
        f"continuation: {'yes' if d['same_continuation'] else 'no'} | |"
    )


def kv_stash_row(d: dict[str, Any] | None) -> str:
    """Prompt tokens the worker evaluates with its KV stash on and off, per recorded step."""
    what = "Prompt tokens the local worker reads, KV stash on vs off (`bench_kv_stash.py`)"
    if d is None:
        return f"| {what} | not run | |"
    parts = []
    for step, arms in sorted(d["steps"].items()):
        for kind, off in sorted(arms["off"].items()):
            on, n = arms["on"][kind], off["prompt_tokens"]
            floor = arms.get("unbounded", {}).get(kind)
            parts.append(
                f"{step}, {kind} ({off['calls']} calls): {off['evaluated_tokens'] / n:.2f} → "
                f"**{on['evaluated_tokens'] / n:.2f}** of {n} prompt tokens"
                + (f" (every earlier prompt kept: {floor['evaluated_tokens'] / n:.2f})" if floor else "")
            )
    return (
        f"| {what}: the requests recorded in `{d['records']}`, tokenized as the worker does, {d['assumption']}; "
        f"{d['entries']} stashed prompts ({d['date']}, token counts: no machine dependence) | {'; '.join(parts)} | |"
    )


def block(bench: Path) -> str:
    rows = [
        judge_row(_load(bench / "judge_core.json"), recheck=_load(bench / "judge_core_workers.json")),
        throughput_row(_load(bench / "lm_throughput.json")),
        # speculative decoding by prompt lookup (lm.draft, lm.prompt_lookup): `make bench`'s draft runs
        judge_row(_load(bench / "judge_core_draft.json"), "prompt-lookup drafts on the per-factor judge"),
        throughput_row(_load(bench / "lm_throughput_draft.json"), "draft", "prompt-lookup drafts"),
        slots_row(_load(bench / "batch_slots.json")),
        llama_build_row(_load(bench / "llama_build.json")),
        kv_stash_row(_load(bench / "kv_stash.json")),
        prompt_layout_row(_load(bench / "prompt_layout.json")),
        fit_layout_row(_load(bench / "fit_layout.json")),
        choice_layout_row(_load(bench / "choice_layout.json")),
        choice_replies_row(_load(bench / "choice_replies.json")),
        kb_row(_load(bench / "kb.json")),
        # one row per fresh-clone build measured (paper_build.json: the default make; _serial: JOBS=1)
        *([paper_build_row(_load(p)) for p in sorted(bench.glob("paper_build*.json"))] or [paper_build_row(None)]),
        *profile_rows(_load(bench / "lm_profile.json")),
    ]
    return "\n".join([BEGIN, "| What | Measured | Target |", "|---|---|---|", *rows, END])


def frame(bench: Path | str) -> pd.DataFrame:
    """:func:`block`'s rows as a table (``What``, ``Measured``, ``Target``; markdown bold removed)."""
    rows = [line.strip().strip("|").split(" | ") for line in block(Path(bench)).splitlines()[3:-1]]
    cells = [[c.strip().replace("**", "") for c in r] + [""] * (3 - len(r)) for r in rows]
    return pd.DataFrame([c[:3] for c in cells], columns=["What", "Measured", "Target"])


def files(bench: Path | str) -> pd.DataFrame:
    """The JSON files of ``bench``: name, date and 1-min load where the file records them, and the
    machine fields it carries (``machine``, ``cpu``, ``platform``, ``threads``) and the conditions
    of the run where its file states them (``conditions``: e.g. niced beside another job)."""
    rows = []
    for path in sorted(Path(bench).glob("*.json")):
        d = json.loads(path.read_text())
        machine = "; ".join(str(d[k]) for k in ("machine", "cpu", "platform", "threads") if k in d)
        load = next((d[k] for k in ("cli_load_1min", "load_1min", "load_1min_start") if k in d), None)
        rows.append(
            {
                "file": path.name,
                "date": d.get("date", "not recorded"),
                "1-min load": load,
                "machine": machine or "not recorded",
                "conditions": d.get("conditions", "not recorded"),
            }
        )
    return pd.DataFrame(rows, columns=["file", "date", "1-min load", "machine", "conditions"])
