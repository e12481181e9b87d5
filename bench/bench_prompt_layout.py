"""Prompt tokens an LLM baseline makes the local worker read per turn, against the turn's new text
(issue 44: "LLM Zero-Shot's evaluated prompt tokens per turn ≤ 1.5 × the turn's new tokens").

The baseline (default LLM Zero-Shot) answers every system turn of a seeded sample of a profile's
dialogues in the closed pool, as ``trace-crs evaluate`` asks it, with a stand-in LM that records
each request and answers without a model (a fixed reply, a fixed log P(yes) per place) — the
requests do not depend on the answers in the closed pool, whose history is the reference's.  Each
request is tokenized exactly as the worker does (its chat handler on a vocabulary-only load of the
GGUF, :mod:`bench_kv_stash`) and the dialogues are played in order through the worker's own reuse
rules with its KV stash (:func:`bench_kv_stash.play_turns`).  A turn's new tokens: the tokens of
the conversation text it adds to the previous turn's (the whole conversation at a first turn,
whose cards are new as well: first turns are reported apart).  Token counts, no timing; run once
per prompt layout (``PYTHONPATH`` = a checkout of the layout's code; the arm is named by
``llm_common.PROMPT_VERSION`` and ``lm.ranking.PROMPT_VERSION``) and every arm is kept:

    python bench/bench_prompt_layout.py --out bench/results/prompt_layout.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench_kv_stash import CountingStash, Tokens, prompt_tokens
from dspy.utils import DummyLM

from trace_crs.atomic import write_json
from trace_crs.baselines import choice, llm_common
from trace_crs.baselines.llm_common import history_text
from trace_crs.baselines.registry import baseline_class
from trace_crs.kb import KB
from trace_crs.kb.store import load_kb
from trace_crs.lm import llama_requests, ranking
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.kv_stash import ENTRIES
from trace_crs.runner.tasks import load_evaluated, turn_contexts

REPLY = 'Luigi fits: "quiet and friendly" [R1].'


class RecordingLM(DummyLM):
    """Keeps every request; answers replies with :data:`REPLY` and fit questions with a fixed yes."""

    def __init__(self) -> None:
        super().__init__([{"response": REPLY, "ranked_ids": "[]"}] * 100_000)
        self.sent: list[list[dict[str, Any]]] = []

    def __call__(self, prompt=None, messages=None, **kwargs):
        self.sent.append(messages)
        if kwargs.get("logprobs"):
            top = [{"token": "yes", "logprob": -0.5}, {"token": "no", "logprob": -1.0}]
            return [{"text": "yes", "logprobs": {"content": [{"token": "yes", "logprob": -0.5, "top_logprobs": top}]}}]
        return super().__call__(prompt, messages=messages, **kwargs)


def turn_requests(baseline: str, dialogues: list[dict], kb: KB, mode: str, seed: int) -> list[dict[str, Any]]:
    """Per system turn: its dialogue, conversation text and the requests the baseline sent."""
    lm = RecordingLM()
    model = baseline_class(baseline)(resolve_lm_config({"mode": mode, "retries": 0}), lm=lm, seed=seed)
    out = []
    for d in dialogues:
        for ctx in turn_contexts(d, kb, "closed", seed):
            start = len(lm.sent)
            model.predict(ctx)
            out.append(
                {"dialogue": ctx.dialogue_id, "conversation": history_text(ctx.history), "sent": lm.sent[start:]}
            )
    return out


def per_turn(
    turns: list[dict[str, Any]],
    tokens_of: Callable[[Any], list[int]],
    count: Callable[[str], int],
    entries: int,
    block: int = llama_requests.REUSE_BLOCK,
) -> list[dict[str, int]]:
    """Evaluated prompt tokens and new tokens of each turn, the turns reaching one worker in order
    (``tokens_of``: a request's prompt tokens; ``count``: the tokens of a text; ``block``: the
    worker's KV reuse block)."""
    cache, stash = Tokens(), CountingStash(entries)
    setattr(cache, llama_requests.KV_BLOCK, block)
    rows, previous = [], {}
    for turn in turns:
        evaluated = prompt = 0
        for messages in turn["sent"]:
            tokens = tokens_of(messages)
            stash.prepare(cache, tokens)
            evaluated += len(tokens) - llama_requests.reusable_prefix(cache, tokens)
            prompt += len(tokens)
            cache.read(tokens, 1)
        conv, before = turn["conversation"], previous.get(turn["dialogue"], "")
        new = conv[len(before) :] if conv.startswith(before) else conv
        rows.append(
            {
                "first": not before,
                "calls": len(turn["sent"]),
                "prompt": prompt,
                "evaluated": evaluated,
                "new": count(new),
            }
        )
        previous[turn["dialogue"]] = conv
    return rows


def summary(rows: list[dict[str, int]]) -> dict[str, Any]:
    """Turn counts, token means and the per-turn ratio evaluated / new (median, share ≤ 1.5)."""
    if not rows:
        return {"turns": 0}
    ratio = np.array([r["evaluated"] / max(r["new"], 1) for r in rows])
    mean = {k: float(np.mean([r[k] for r in rows])) for k in ("calls", "prompt", "evaluated", "new")}
    return {
        "turns": len(rows),
        **{f"mean_{k}": round(v, 1) for k, v in mean.items()},
        "ratio_median": round(float(np.median(ratio)), 2),
        "ratio_of_means": round(mean["evaluated"] / max(mean["new"], 1e-9), 2),
        "share_within_1_5": round(float(np.mean(ratio <= 1.5)), 3),
    }


def code_commit() -> str:
    """The commit of the ``trace_crs`` code this run imported (``-dirty`` with uncommitted changes)."""
    git = ["git", "-C", str(Path(llm_common.__file__).parent)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout.strip()
    return head + ("-dirty" if dirty else "")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="default")
    p.add_argument("--baseline", default="llm_zero_shot")
    p.add_argument("--modes", nargs="+", default=["logprob", "generative"])
    p.add_argument("--n", type=int, default=20, help="dialogues (seeded sample)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    p.add_argument(
        "--reuse-block",
        type=int,
        default=None,
        help="a what-if: KV rows reused in whole blocks of this many tokens (default: the block the worker "
        "measures on this machine for the weights, llama_requests.measure_block)",
    )
    p.add_argument("--out", required=True)
    args = p.parse_args()
    from llama_cpp import Llama

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    what_if = args.reuse_block is not None
    if not what_if:  # the worker's own measurement, on a full load of the weights
        full = Llama(f"models/{args.weights}.gguf", n_ctx=512, n_threads=1, n_threads_batch=1, verbose=False)
        args.reuse_block = llama_requests.measure_block(full)
        del full
    llama = Llama(f"models/{args.weights}.gguf", vocab_only=True, verbose=False)
    kb = load_kb(f"data/kb/{args.profile}")
    dialogues = load_evaluated(f"data/dialogues/{args.profile}/dialogues.jsonl", args.n, args.seed)
    out = Path(args.out)
    result = json.loads(out.read_text()) if out.exists() else {"layouts": {}}
    for mode in args.modes:
        layout = layout_of(mode) + (f", what-if: KV reuse in blocks of {args.reuse_block}" if what_if else "")
        rows = per_turn(
            turn_requests(args.baseline, dialogues, kb, mode, args.seed),
            lambda messages: prompt_tokens(llama, messages),
            lambda text: len(llama.tokenize(text.encode(), add_bos=False)) if text else 0,
            ENTRIES,
            args.reuse_block,
        )
        arm = {
            "first_turns": summary([r for r in rows if r["first"]]),
            "later_turns": summary([r for r in rows if not r["first"]]),
        }
        print(f"layout {layout} {args.baseline} {mode}: {arm}")
        kept = result["layouts"].get(layout, {}).get("modes", {})  # the layout's other modes stay
        result["layouts"][layout] = {
            "date": dt.date.today().isoformat(),
            "commit": code_commit(),
            "profile": args.profile,
            "baseline": args.baseline,
            "dialogues": len(dialogues),
            "seed": args.seed,
            "weights": args.weights,
            "stash_entries": ENTRIES,
            "reuse_block": args.reuse_block,
            "reuse_block_measured": not what_if,
            "reuse_rule": "whole blocks, at least one block of the prompt read",
            "conditions": "token counts of recorded requests (stand-in LM, closed pool); nothing timed; the reuse "
            "block is this machine's (llama_requests.measure_block) unless a what-if",
            "modes": {**kept, mode: arm},
        }
    write_json(result, out, indent=1)


def layout_of(mode: str) -> str:
    """The prompt layout a mode's requests follow: ``choice`` has its own (baselines/choice.py); the
    others are the baselines' prompts and the fit questions' versions."""
    if mode == "choice":
        return choice.PROMPT_VERSION
    return f"{llm_common.PROMPT_VERSION}, {ranking.PROMPT_VERSION}"


if __name__ == "__main__":
    main()
