"""Does LLM Zero-Shot's ``choice`` layout (one shared prefix per dialogue, the ranking read from the
model's distribution over card letters; :mod:`trace_crs.baselines.choice`) rank the reference place
as well as the default ``fits-v1`` fit questions (one log P(yes) question per card;
:func:`trace_crs.lm.ranking.fits_messages`)?  On the local model, side by side on the same turns.

The turns are :mod:`bench_fit_layout`'s: every recommending system turn with a gold place of a
seeded sample of the profile's dialogues drawn from those **outside** the LLM runs' evaluated
subset, closed pool, so a layout is never chosen on the dialogues the book reports.  Per turn and
layout: the gold place's rank (rejected places last, a tie counted against gold), R@1 and MRR; the
paired difference choice − fits-v1 with a 95 % bootstrap interval over dialogues; the prompt tokens
the worker evaluated (``timings.prompt_n``; choice: its letter call only, the reply call is not
sent).  Each layout runs as its own pass over the turns in dialogue order, so the worker's KV cache
holds what that layout's previous request left (as in a run).  The worker is asked directly over
HTTP: no LM cache, no records (these calls are part of no build).

    python bench/bench_choice_layout.py --n 30 --out bench/results/choice_layout.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from typing import Any

from bench_fit_layout import add_sample_args, ask, gold_rank, held_out, one_token, paired_summary, sample_record
from bench_prompt_layout import code_commit

from trace_crs.atomic import write_json
from trace_crs.baselines import choice
from trace_crs.baselines.llm_common import Evidence, history_text, poi_card
from trace_crs.lm.ranking import fits_messages
from trace_crs.lm.server import LlamaServer
from trace_crs.runner.tasks import turn_contexts

ARMS = ("fits-v1", "choice")  # the choice arm's prompt version is recorded as "choice_prompt"


def ask_letters(api_base: str, messages: list[dict[str, str]], labels: str) -> tuple[dict[str, float], int]:
    """log P of each card letter and the prompt tokens evaluated for the one-token choice call."""
    pairs, evaluated = one_token(api_base, messages)
    return choice.letter_logprobs(pairs, labels), evaluated


def turns(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The KB and the recommending turns with a gold place among the candidates (module docstring)."""
    kb, sample = held_out(args)
    out = []
    for d in sample:
        for ctx in turn_contexts(d, kb, "closed", args.seed):
            gold = set(d["turns"][ctx.turn_index].get("gold_poi_ids") or []) & set(ctx.candidates)
            if ctx.action == "recommend" and gold:
                out.append((ctx, gold))
    return kb, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sample_args(p, 30)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    kb, selected = turns(args)
    rows: list[dict[str, Any]] = [{"dialogue": ctx.dialogue_id, "turn": ctx.turn_index} for ctx, _ in selected]
    with LlamaServer(f"models/{args.weights}.gguf", "m", 8192, args.threads) as server:
        for arm in ARMS:
            for row, (ctx, gold) in zip(rows, selected, strict=True):
                conv, cands = history_text(ctx.history), list(ctx.candidates)
                if arm == "fits-v1":
                    asked = {c: ask(server.api_base, fits_messages(conv, poi_card(kb, c))) for c in cands}
                    scores, evaluated = {c: v[0] for c, v in asked.items()}, sum(v[1] for v in asked.values())
                else:
                    labels = choice.letters(len(cands))
                    system = choice.system_message(kb, cands, Evidence())
                    by_label, evaluated = ask_letters(server.api_base, choice.choice_messages(system, conv), labels)
                    scores = {c: by_label[lab] for lab, c in zip(labels, cands, strict=True)}
                row[arm] = {"rank": gold_rank(scores, set(ctx.rejected_poi_ids), gold), "evaluated": evaluated}
                print(arm, row, flush=True)
    result = {
        "date": dt.date.today().isoformat(),
        "commit": code_commit(),
        "profile": args.profile,
        "weights": args.weights,
        "choice_prompt": choice.PROMPT_VERSION,
        "threads": args.threads,
        "sample": sample_record(args, turns=len(rows)),
        "rows": rows,
        "summary": summarize(rows),
    }
    write_json(result, args.out, indent=1)
    print(json.dumps(result["summary"], indent=1))


def summarize(rows: list[dict[str, Any]], reps: int = 2000) -> dict[str, Any]:
    """R@1 and MRR per layout and the paired choice − fits-v1 difference, 95 % bootstrap over dialogues."""
    return paired_summary(rows, *ARMS, "", reps)


if __name__ == "__main__":
    main()
