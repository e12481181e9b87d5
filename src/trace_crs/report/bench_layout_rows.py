"""The prompt-layout rows of ``make bench``'s measured table (:mod:`trace_crs.report.bench_table`):
how many prompt tokens an LLM baseline makes the local worker read per turn, and what each layout
tried for LLM Zero-Shot does to its ranking and its replies, rendered from the benchmarks' JSON
files (a missing file gives a "not run" row)."""

from __future__ import annotations

from typing import Any


def _lzs_local_mode() -> str:
    """LLM Zero-Shot's ranking mode in the ``local`` preset."""
    from trace_crs.baselines.llm_zero_shot import LLMZeroShotBaseline
    from trace_crs.lm.config import PRESETS

    return LLMZeroShotBaseline.resolve_mode(PRESETS["local"]["mode"])


def _role(mode: str) -> str:
    return "default" if _lzs_local_mode() == mode else "opt-in"


def prompt_layout_row(d: dict[str, Any] | None) -> str:
    """Prompt tokens evaluated per turn against the turn's new tokens, per prompt layout and mode."""
    what = "Prompt tokens an LLM baseline makes the worker read per turn ÷ the turn's new tokens (`bench_prompt_layout.py`)"
    if not d or not d.get("layouts"):
        return f"| {what} | not run | ≤ 1.5× (issue 44) |"
    from trace_crs.baselines.choice import PROMPT_VERSION as CHOICE_VERSION
    from trace_crs.baselines.llm_common import PROMPT_VERSION
    from trace_crs.lm.ranking import PROMPT_VERSION as FITS_VERSION

    current = f"{PROMPT_VERSION}, {FITS_VERSION}"
    local = _lzs_local_mode()
    labels = {current: "current", CHOICE_VERSION: "current `choice` mode"}
    labels[CHOICE_VERSION if local == "choice" else current] += "; LLM Zero-Shot's local default"
    parts, first = [], next(iter(d["layouts"].values()))
    for layout, arm in sorted(d["layouts"].items()):
        block = f"; KV reuse block {arm['reuse_block']}" if "reuse_block" in arm else ""
        block += ", measured" if arm.get("reuse_block_measured") else ""
        name = f"{layout} ({labels.get(layout, 'commit ' + arm['commit'])}{block})"
        for mode, turns in sorted(arm["modes"].items()):
            later, opening = turns["later_turns"], turns["first_turns"]
            parts.append(
                f"{name}, {mode}: later turns (n = {later['turns']}) {later['mean_evaluated']:.0f} evaluated for "
                f"{later['mean_new']:.0f} new, **{later['ratio_of_means']:.2f}×** (median {later['ratio_median']:.2f}×, "
                f"{later['share_within_1_5']:.0%} of turns ≤ 1.5×); first turns (n = {opening['turns']}) "
                f"{opening['mean_evaluated']:.0f} evaluated"
            )
    return (
        f"| {what}: `{first['baseline']}` on {first['dialogues']} dialogues of the {first['profile']} profile "
        f"(seed {first['seed']}), closed pool, {first['weights']} tokenizer, KV stash of {first['stash_entries']} "
        f"({first['date']}; token counts, the KV reuse block measured on the machine by the worker's own test) "
        f"| {'; '.join(parts)} | ≤ 1.5× (issue 44) |"
    )


def _diff(d: dict[str, Any], label: str = "") -> str:
    """A paired difference ``{"estimate", "ci95"}``: "+0.02, 95 % CI -0.15 to +0.20" (``label`` first)."""
    lo, hi = d["ci95"]
    return f"{label + ' ' if label else ''}{d['estimate']:+.2f}, 95 % CI {lo:+.2f} to {hi:+.2f}"


def fit_layout_row(d: dict[str, Any] | None) -> str:
    """Gold place's R@1 and MRR by the fit questions' log P(yes), layout v1 vs v2, same turns."""
    what = (
        "Fit-question layout `fits-v1` (current) vs `fits-v2` (every card first; tried, not adopted) on the local "
        "model: the reference place ranked first (`bench_fit_layout.py`)"
    )
    if d is None:
        return f"| {what} | not run | |"
    s, n = d["summary"], d["sample"]
    r1, mrr = s["r_at_1_diff_v2_minus_v1"], s["mrr_diff_v2_minus_v1"]
    return (
        f"| {what}: {n['turns']} recommending turns of {n['dialogues']} dialogues outside {n['excluded']}, "
        f"{d['weights']} ({d['date']}) | R@1 {s['v1']['r_at_1']:.2f} → {s['v2']['r_at_1']:.2f} "
        f"({_diff(r1, 'v2 − v1')}); MRR {s['v1']['mrr']:.2f} → {s['v2']['mrr']:.2f} ({_diff(mrr)}); tokens evaluated per turn {s['evaluated_tokens_per_turn']['v1']:.0f} → "
        f"{s['evaluated_tokens_per_turn']['v2']:.0f} (fresh worker per run, turns in order) | |"
    )


def choice_layout_row(d: dict[str, Any] | None) -> str:
    """Gold place's R@1 and MRR: ``fits-v1`` fit questions (``logprob`` mode) vs the ``choice`` layout, same turns."""
    what = (
        f"LLM Zero-Shot's ranking on the local model, `fits-v1` fit questions ({_role('logprob')}) vs `choice` (one "
        f"shared prefix per dialogue, the ranking read from the card letters; {_role('choice')}): the reference place "
        "ranked first (`bench_choice_layout.py`)"
    )
    if d is None:
        return f"| {what} | not run | |"
    what += f", prompt `{d['choice_prompt']}`"
    s, n = d["summary"], d["sample"]
    a, b = "fits-v1", "choice"
    r1, mrr = s["r_at_1_diff"], s["mrr_diff"]
    return (
        f"| {what}: {n['turns']} recommending turns of {n['dialogues']} dialogues outside {n['excluded']}, "
        f"{d['weights']} ({d['date']}) | R@1 {s[a]['r_at_1']:.2f} → {s[b]['r_at_1']:.2f} "
        f"({_diff(r1, 'choice − fits')}); MRR {s[a]['mrr']:.2f} → {s[b]['mrr']:.2f} ({_diff(mrr)}); tokens evaluated per turn {s['evaluated_tokens_per_turn'][a]:.0f} → "
        f"{s['evaluated_tokens_per_turn'][b]:.0f} (choice: its letter call only; each layout one pass, turns in "
        "order) | |"
    )


def choice_replies_row(d: dict[str, Any] | None) -> str:
    """LLM Zero-Shot's replies, ``logprob`` vs ``choice`` mode, same held-out turns (CGS, R@1, citing share)."""
    what = (
        f"LLM Zero-Shot's replies on the local model, `logprob` mode ({_role('logprob')}) vs `choice` "
        f"({_role('choice')}): the whole baseline as `trace-crs evaluate` runs it, scored per turn "
        "(`bench_choice_replies.py`)"
    )
    if d is None:
        return f"| {what} | not run | |"
    what += f", prompt `{d['choice_prompt']}`"
    s, n = d["summary"], d["sample"]
    a, b = "logprob", "choice"
    diffs = "; ".join(
        f"{label} {s[a][m]:.2f} → {s[b][m]:.2f} ({_diff(s[m + '_diff'], 'choice − logprob')})"
        for m, label in (("cgs", "CGS"), ("recall@1", "R@1"), ("cited", "replies citing a review"))
    )
    return (
        f"| {what}: {s['n_turns']} turns of {s['n_dialogues']} dialogues outside {n['excluded']}, "
        f"{d['weights']} ({d['date']}) | {diffs}; bare replies (≤ 3 words) {s[a]['bare']:.0%} → {s[b]['bare']:.0%}; "
        f"reply tokens {s[a]['completion_tokens']:.0f} → {s[b]['completion_tokens']:.0f} | |"
    )
