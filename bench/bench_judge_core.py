"""Benchmark: the CoRE judge on the same transcripts, two arms side by side (not a timed test;
the book's Performance page).  Default (issue 44): the paper's per-factor rationale-and-rating
judge (``--mode per-factor``, prompt ``core-v2``) vs the book's judge (``--mode logprob``, prompt
``core-v3``: instructions and all twelve guidelines as one shared prefix, then the conversation,
then a few tokens of question, one output token per factor), one worker each.  The first of
``--n`` transcripts warms the worker (it pays the shared prefix); the others show the steady
state: model seconds and the prompt tokens the worker evaluated after its KV prefix
(``TRACE_WORKER_TIMINGS``), beside the conversation log's own tokens.  ``--workers-check``
judges the same transcripts again with two servers and counts identical records; ``--workers-only``
runs just that check (the 'after' arm on one server, then on two) into a file of its own.

Both arms run ``trace-crs judge core`` (each with its ``--before-mode`` / ``--after-mode`` flags)
on the same transcripts with the same local weights, one llama.cpp process of ``--threads``
threads and an empty LM cache, in a subprocess whose ``PYTHONPATH`` is this checkout's ``src`` ("after") or a
``git archive`` export of ``--before`` ("before", e.g. the commit before the prefix-friendly
judge prompt ``core-v2``).  Arms are interleaved (before, after, after, before, ...) so that a
change in the machine's load hits both.  Reported per arm: wall seconds of the command, model
seconds, calls, prompt/completion tokens and replies cut at ``max_tokens`` from the judged
record; the before/after ratios of the medians; the 1-minute load average at each run; and
how many factor ratings agree between the arms (the prompts differ between ``core-v1`` and
``core-v2``, so agreement is reported, not expected).

    python bench/bench_judge_core.py --out results/bench/judge_core.json
    python bench/bench_judge_core.py --before 2b5789b --after-set lm.servers=1 --out ...  # core-v1 vs core-v2
    python bench/bench_judge_core.py --after-mode "--mode per-factor" --after-set lm.servers=1 lm.draft=prompt-lookup \
        --out results/bench/judge_core_draft.json
        # prompt-lookup drafts vs none (``make bench-draft``): same prompt, so equal ratings are expected
        # in exact arithmetic; the count says how many a verification batch's rounding changed
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {
    **os.environ,
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "TQDM_DISABLE": "1",
    "PYTHONHASHSEED": "0",
}


def first_transcript(path: str | None, into: Path, n: int = 1) -> Path:
    """The first ``n`` transcripts of ``path``; without one, the first dialogues of the smoke corpus
    (``make dialogues PROFILE=smoke``) exported as Trace transcripts (``judge transcripts``)."""
    out = into / "transcript.jsonl"
    if path is None:
        dialogues, kb = ROOT / "data/dialogues/smoke/dialogues.jsonl", ROOT / "data/kb/smoke"
        if not dialogues.exists() or not kb.exists():
            raise SystemExit(
                f"no --transcripts and no smoke corpus at {dialogues} / {kb}: "
                "run `make dialogues PROFILE=smoke` or pass --transcripts"
            )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "trace_crs",
                "judge",
                "transcripts",
                "--dialogues",
                str(dialogues),
                "--kb",
                str(kb),
                "--n",
                str(n),
                "--out",
                str(out),
            ],
            env={**ENV, "PYTHONPATH": str(ROOT / "src")},
            check=True,
            capture_output=True,
        )
        path = str(out)
    out.write_text("".join(line + "\n" for line in Path(path).read_text().splitlines()[:n]))
    return out


def log_tokens(transcripts: Path, model: Path) -> list[int]:
    """Each transcript's conversation log (what the judge reads of it) in the model's tokens."""
    from llama_cpp import Llama

    from trace_crs.judge.transcript import load_transcripts

    vocab = Llama(str(model), vocab_only=True, verbose=False)
    return [len(vocab.tokenize(t.log().encode(), add_bos=False)) for t in load_transcripts(transcripts)]


def export_commit(ref: str, into: Path) -> Path:
    """``src/`` of ``ref`` (``git archive``, no worktree) under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def judge_once(
    src: Path, transcripts: Path, weights: str, arm_sets: list[str], work: Path, models: Path, mode: list[str]
) -> dict:
    """One cold run of ``judge core`` with ``src`` on the path, the arm's mode flags and ``--set``
    overrides; per transcript: the record's usage, and the prompt tokens the worker evaluated
    (after its KV prefix; ``TRACE_WORKER_TIMINGS``), wall time, load."""
    out, cache, timings = work / "judged.jsonl", work / "cache", work / "timings.jsonl"
    sets = [f"lm.weights={weights}", *arm_sets, f"lm.cache_dir={cache}", f"lm.models_dir={models}"]
    cmd = [
        sys.executable,
        "-m",
        "trace_crs",
        "judge",
        "core",
        "--transcripts",
        str(transcripts),
        "--out",
        str(out),
        *mode,
        "--quiet",
        *[a for s in sets for a in ("--set", s)],
    ]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    env = {**ENV, "PYTHONPATH": str(src), "TRACE_WORKER_TIMINGS": str(timings)}
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    evaluated = [json.loads(line)["timings"]["prompt_n"] for line in timings.read_text().splitlines()]
    per, at = [], 0
    for rec in recs:  # one worker, transcripts in order: each record's calls are the next lines
        calls = int(rec["usage"]["calls"])
        per.append(
            {**rec["usage"], "evaluated_prompt_tokens": sum(evaluated[at : at + calls]), "factors": rec["factors"]}
        )
        at += calls
    return {
        "wall_s": round(wall, 2),
        "load_1min": round(load, 2),
        "prompt_version": recs[0].get("prompt_version"),
        "transcripts": per,
    }


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows) if rows else float("nan")


def summarise(runs: list[dict], log_toks: list[int]) -> dict:
    """Per arm: the first transcript (it pays the prompt prefix every transcript shares) and the
    medians over the others (a warm worker), with evaluated prompt tokens ÷ the log's tokens."""
    first = [r["transcripts"][0] for r in runs]
    warm = [t for r in runs for t in r["transcripts"][1:]]
    ratios = [t["evaluated_prompt_tokens"] / log_toks[i + 1] for r in runs for i, t in enumerate(r["transcripts"][1:])]
    keys = ("model_s", "prompt_tokens", "evaluated_prompt_tokens", "completion_tokens", "calls")
    return {
        "first": {k: _median(first, k) for k in keys},
        "warm": {k: _median(warm, k) for k in keys},
        "warm_evaluated_over_log_tokens": statistics.median(ratios) if ratios else None,
        "wall_s": _median(runs, "wall_s"),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--transcripts", help="transcripts JSON lines (default: the smoke corpus's first dialogues)")
    p.add_argument("--n", type=int, default=3, help="transcripts judged per run (the first warms the worker)")
    p.add_argument("--before", default="HEAD", help="git ref of the 'before' arm's src/ (HEAD: this commit)")
    p.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads in all, both arms")
    p.add_argument("--before-mode", default="--mode per-factor", help="judge core flags of 'before' (one string)")
    p.add_argument("--after-mode", default="--mode logprob --rating expected", help="judge core flags of 'after'")
    p.add_argument("--before-set", nargs="*", default=["lm.servers=1"], help="--set overrides of the 'before' arm")
    p.add_argument("--after-set", nargs="*", default=["lm.servers=1"], help="--set overrides of the 'after' arm")
    p.add_argument("--repeats", type=int, default=1, help="runs per arm, interleaved")
    p.add_argument(
        "--workers-check",
        type=int,
        default=2,
        help="also run 'after' with this many servers (one transcript per worker) and compare its records (0: skip)",
    )
    p.add_argument(
        "--workers-only",
        action="store_true",
        help="only the records check: the 'after' arm on one server and on --workers-check servers "
        "(written alone to --out, e.g. bench/results/judge_core_workers.json)",
    )
    p.add_argument("--models", default=str(ROOT / "models"))
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_judge_") as tmp:
        tmp_path = Path(tmp)
        first = first_transcript(args.transcripts, tmp_path, args.n)
        log_toks = log_tokens(first, Path(args.models) / f"{args.weights}.gguf")
        srcs = {"before": export_commit(args.before, tmp_path / "before"), "after": ROOT / "src"}
        modes = {"before": shlex.split(args.before_mode), "after": shlex.split(args.after_mode)}
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for i in range(0 if args.workers_only else args.repeats):
            for arm in ("before", "after") if i % 2 == 0 else ("after", "before"):
                work = tmp_path / f"{arm}{i}"
                work.mkdir()
                sets = [f"lm.n_threads={args.threads}", *(args.before_set if arm == "before" else args.after_set)]
                runs[arm].append(judge_once(srcs[arm], first, args.weights, sets, work, Path(args.models), modes[arm]))
                print(arm, runs[arm][-1]["wall_s"], [t["model_s"] for t in runs[arm][-1]["transcripts"]], flush=True)
        if args.workers_only:  # the one-server run the check compares against
            work = tmp_path / "after_only"
            work.mkdir()
            sets = [f"lm.n_threads={args.threads}", *args.after_set]
            runs["after"].append(
                judge_once(srcs["after"], first, args.weights, sets, work, Path(args.models), modes["after"])
            )
        workers = None
        if args.workers_check:
            work = tmp_path / "workers"
            work.mkdir()
            sets = [f"lm.n_threads={args.workers_check}", f"lm.servers={args.workers_check}"]
            cmd_mode = [*modes["after"], "--workers", str(args.workers_check)]
            many = judge_once(srcs["after"], first, args.weights, sets, work, Path(args.models), cmd_mode)
            one = runs["after"][0]["transcripts"]
            workers = {
                "servers": args.workers_check,
                "records_equal": sum(
                    a["factors"] == b["factors"] for a, b in zip(one, many["transcripts"], strict=True)
                ),
                "records_compared": len(one),
            }
    if args.workers_only:
        only = {
            "transcripts": args.transcripts,
            "n": args.n,
            "weights": args.weights,
            "threads": args.threads,
            "after_mode": args.after_mode,
            "after_set": args.after_set,
            "date": time.strftime("%Y-%m-%d"),
            "commit": subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
            ).stdout.strip(),
            "cpu_count": os.cpu_count(),
            "workers": workers,
        }
        from trace_crs.atomic import write_json

        write_json(only, args.out, indent=2)
        print(json.dumps(workers, indent=2))
        return 0
    summary = {arm: summarise(rs, log_toks) for arm, rs in runs.items()}
    pairs = [
        (b["factors"][n], a["factors"][n])
        for rb, ra in zip(runs["before"], runs["after"], strict=False)
        for b, a in zip(rb["transcripts"], ra["transcripts"], strict=True)
        for n in b["factors"]
    ]
    result = {
        "transcripts": args.transcripts,
        "n": args.n,
        "log_tokens": log_toks,
        "before": args.before,
        "before_mode": args.before_mode,
        "after_mode": args.after_mode,
        "weights": args.weights,
        "threads": args.threads,
        "before_set": args.before_set,
        "after_set": args.after_set,
        "date": time.strftime("%Y-%m-%d"),
        "repeats": args.repeats,
        "cpu_count": os.cpu_count(),
        "runs": runs,
        "summary": summary,
        "warm_model_s_before_over_after": (
            round(summary["before"]["warm"]["model_s"] / summary["after"]["warm"]["model_s"], 3)
            if summary["after"]["warm"]["model_s"]
            else None
        ),
        "ratings_equal": sum(b == a for b, a in pairs),
        "ratings_compared": len(pairs),
        "workers": workers,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps({k: result[k] for k in ("summary", "warm_model_s_before_over_after", "workers")}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
