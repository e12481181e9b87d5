"""Does the fit question's layout change what the local model ranks first?  ``fits-v1`` (the
conversation, then one card; :func:`trace_crs.lm.ranking.fits_messages`) against ``fits-v2``, a
layout tried and not adopted (every card shown, the conversation, then the question naming one
place: a dialogue's turns then share the cards as a cached prefix), on the local model, side by
side on the same turns.

The turns: every recommending system turn with a gold place of a seeded sample of a profile's
dialogues drawn from those **outside** the LLM runs' evaluated subset (``closed_llm``'s seed and
size), closed pool, so the layout is not chosen on the dialogues the book reports.  Per turn and
layout: the gold place's rank among the candidates by log P(yes) (rejected places last, as the
baselines rank), R@1 and MRR; the paired difference v2 − v1 with a 95 % bootstrap interval over
dialogues; the tokens the worker evaluated (``timings.prompt_n``).  The worker is asked directly
over HTTP (no LM cache, no LM records: these calls are part of no build).

    python bench/bench_fit_layout.py --n 12 --out bench/results/fit_layout.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import urllib.request
from typing import Any

import numpy as np
from bench_prompt_layout import code_commit

from trace_crs.atomic import write_json
from trace_crs.baselines.llm_common import cards_text, history_text, poi_card
from trace_crs.kb.store import load_kb
from trace_crs.lm.ranking import TOP_K, FitsRequest, fits_messages, top_entries, yes_logprob
from trace_crs.lm.server import LlamaServer
from trace_crs.runner.tasks import load_evaluated, turn_contexts


def v2_messages(cards: str, conversation: str, place: str) -> list[dict[str, str]]:
    """``fits-v2`` (not adopted): every card, the conversation, then the question naming ``place``."""
    return [
        {"role": "system", "content": f"{FitsRequest.instructions} Answer with one word: yes or no."},
        {
            "role": "user",
            "content": f"Places:\n{cards}\n\nConversation:\n{conversation}\n\n"
            f"Does this place fit the request: {place}? Answer yes or no.",
        },
    ]


def one_token(api_base: str, messages: list[dict[str, str]]) -> tuple[list[tuple[str, float]], int]:
    """The first token's top log-probabilities and the prompt tokens the worker evaluated for one
    greedy 1-token call."""
    body = {
        "model": "m",
        "messages": messages,
        "logprobs": True,
        "top_logprobs": TOP_K,
        "max_tokens": 1,
        "temperature": 0.0,
        "seed": 42,
    }
    req = urllib.request.Request(
        f"{api_base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=600) as resp:
        raw = json.load(resp)
    return top_entries(raw["choices"][0]["logprobs"]), int(raw["timings"]["prompt_n"])


def ask(api_base: str, messages: list[dict[str, str]]) -> tuple[float, int]:
    """log P(yes) and the prompt tokens the worker evaluated for one 1-token call."""
    pairs, evaluated = one_token(api_base, messages)
    return yes_logprob(pairs), evaluated


def add_sample_args(
    p: argparse.ArgumentParser, n: int, threads_help: str = "llama.cpp threads of the one worker"
) -> None:
    """The options of the held-out sample (:func:`held_out`) and of the local model, shared by the layout benches."""
    p.add_argument("--profile", default="default")
    p.add_argument("--n", type=int, default=n, help="dialogues in the sample")
    p.add_argument("--reported", type=int, default=20, help="size of the LLM runs' subset (excluded)")
    p.add_argument("--seed", type=int, default=42, help="the LLM runs' subset seed (excluded)")
    p.add_argument("--sample-seed", type=int, default=7)
    p.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    p.add_argument("--threads", type=int, default=1, help=threads_help)


def sample_record(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """How a result file names its held-out sample (``extra``: e.g. its turn count)."""
    return {
        "dialogues": args.n,
        **extra,
        "sample_seed": args.sample_seed,
        "excluded": f"the {args.reported}-dialogue subset of seed {args.seed}",
    }


def held_out(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    """The KB and the seeded sample of ``args.n`` dialogues outside the LLM runs' evaluated subset."""
    kb = load_kb(f"data/kb/{args.profile}")
    path = f"data/dialogues/{args.profile}/dialogues.jsonl"
    reported = {d["dialogue_id"] for d in load_evaluated(path, args.reported, args.seed)}
    rest = [d for d in load_evaluated(path, None, args.seed) if d["dialogue_id"] not in reported]
    rng = np.random.default_rng(args.sample_seed)
    return kb, [rest[i] for i in sorted(rng.choice(len(rest), size=args.n, replace=False))]


def gold_rank(scores: dict[str, float], rejected: set[str], gold: set[str]) -> int:
    """1-based rank of the best-placed gold id, rejected places last; a tie counts against gold."""
    key = {c: (c in rejected, -s) for c, s in scores.items()}
    best = min(key[g] for g in gold)
    return 1 + sum(key[c] <= best for c in scores if c not in gold)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sample_args(p, 12)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    kb, sample = held_out(args)
    rows = []
    with LlamaServer(f"models/{args.weights}.gguf", "m", 4096, args.threads) as server:
        for d in sample:
            for ctx in turn_contexts(d, kb, "closed", args.seed):
                gold = set(d["turns"][ctx.turn_index].get("gold_poi_ids") or []) & set(ctx.candidates)
                if ctx.action != "recommend" or not gold:
                    continue
                conv, cands = history_text(ctx.history), list(ctx.candidates)
                places = cards_text(kb, cands, None)
                row: dict[str, Any] = {"dialogue": ctx.dialogue_id, "turn": ctx.turn_index}
                for layout, build in (
                    ("v1", lambda c, conv=conv: fits_messages(conv, poi_card(kb, c))),
                    ("v2", lambda c, conv=conv, places=places: v2_messages(places, conv, f"[{c}] {kb.pois[c].name}")),
                ):
                    asked = {c: ask(server.api_base, build(c)) for c in cands}
                    scores = {c: v[0] for c, v in asked.items()}
                    rank = gold_rank(scores, set(ctx.rejected_poi_ids), gold)
                    row[layout] = {"rank": rank, "evaluated": sum(v[1] for v in asked.values())}
                rows.append(row)
                print(row, flush=True)
    result = {
        "date": dt.date.today().isoformat(),
        "commit": code_commit(),
        "profile": args.profile,
        "weights": args.weights,
        "sample": sample_record(args, turns=len(rows)),
        "rows": rows,
        "summary": summarize(rows),
    }
    write_json(result, args.out, indent=1)
    print(json.dumps(result["summary"], indent=1))


def summarize(rows: list[dict[str, Any]], reps: int = 2000) -> dict[str, Any]:
    """R@1 and MRR per layout and the paired v2 − v1 difference, 95 % bootstrap over dialogues."""
    return paired_summary(rows, "v1", "v2", "_v2_minus_v1", reps)


def paired_summary(rows: list[dict[str, Any]], base: str, other: str, suffix: str, reps: int) -> dict[str, Any]:
    """R@1 and MRR of arms ``base`` and ``other`` (each row: ``{arm: {"rank", "evaluated"}}``) and the
    paired ``other − base`` difference (keys ``<metric>_diff<suffix>``), 95 % bootstrap over dialogues."""
    dialogues = sorted({r["dialogue"] for r in rows})
    by = {d: [r for r in rows if r["dialogue"] == d] for d in dialogues}

    def stat(sel: list[dict[str, Any]], arm: str) -> dict[str, float]:
        ranks = np.array([r[arm]["rank"] for r in sel])
        return {"r_at_1": float(np.mean(ranks == 1)), "mrr": float(np.mean(1 / ranks))}

    out: dict[str, Any] = {arm: stat(rows, arm) for arm in (base, other)}
    rng = np.random.default_rng(42)
    diffs: dict[str, list[float]] = {"r_at_1": [], "mrr": []}
    for _ in range(reps):
        sel = [r for d in rng.choice(dialogues, size=len(dialogues)) for r in by[d]]
        a, b = stat(sel, base), stat(sel, other)
        for k in diffs:
            diffs[k].append(b[k] - a[k])
    for k, v in diffs.items():
        out[f"{k}_diff{suffix}"] = {
            "estimate": out[other][k] - out[base][k],
            "ci95": [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))],
        }
    out["evaluated_tokens_per_turn"] = {
        arm: float(np.mean([r[arm]["evaluated"] for r in rows])) for arm in (base, other)
    }
    out["n_turns"], out["n_dialogues"] = len(rows), len(dialogues)
    return out


if __name__ == "__main__":
    main()
