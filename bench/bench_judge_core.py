"""Benchmark: the CoRE per-factor judge on one transcript, two arms side by side (not a timed
test; README "Measured here").  Default: today's path (one worker, the twelve calls in order)
vs parallel slots (one worker with ``lm.slots=6 lm.slot_kv=shared``: the first factor alone, the other eleven
decoded in one batch per step, the conversation's KV cells copied between slots), same code,
same threads.

Both arms run the same command, ``trace-crs judge core --mode per-factor`` on the same
transcript with the same local weights, one llama.cpp process of ``--threads`` threads and an
empty LM cache, in a subprocess whose ``PYTHONPATH`` is this checkout's ``src`` ("after") or a
``git archive`` export of ``--before`` ("before", e.g. the commit before the prefix-friendly
judge prompt ``core-v2``).  Arms are interleaved (before, after, after, before, ...) so that a
change in the machine's load hits both.  Reported per arm: wall seconds of the command, model
seconds, calls, prompt/completion tokens and replies cut at ``max_tokens`` from the judged
record; the before/after ratios of the medians; the 1-minute load average at each run; and
how many factor ratings agree between the arms (the prompts differ between ``core-v1`` and
``core-v2``, so agreement is reported, not expected).

    python bench/bench_judge_core.py --out results/bench/judge_core.json
    python bench/bench_judge_core.py --before 2b5789b --after-set lm.servers=1 --out ...  # core-v1 vs core-v2
    python bench/bench_judge_core.py --after-set lm.servers=1 lm.draft=prompt-lookup --out results/bench/judge_core_draft.json
        # prompt-lookup drafts vs none (``make bench-draft``): same prompt, so equal ratings are expected
        # in exact arithmetic; the count says how many a verification batch's rounding changed
"""

from __future__ import annotations

import argparse
import json
import os
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


def first_transcript(path: str | None, into: Path) -> Path:
    """The first transcript of ``path``; without one, the first dialogue of the smoke corpus
    (``make dialogues PROFILE=smoke``) exported as a Trace transcript (``judge transcripts``)."""
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
                "1",
                "--out",
                str(out),
            ],
            env={**ENV, "PYTHONPATH": str(ROOT / "src")},
            check=True,
            capture_output=True,
        )
        path = str(out)
    out.write_text(Path(path).read_text().splitlines()[0] + "\n")
    return out


def export_commit(ref: str, into: Path) -> Path:
    """``src/`` of ``ref`` (``git archive``, no worktree) under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def judge_once(src: Path, transcripts: Path, weights: str, arm_sets: list[str], work: Path, models: Path) -> dict:
    """One cold run of ``judge core`` with ``src`` on the path and the arm's ``--set`` overrides;
    the record's usage, wall time, load."""
    out, cache = work / "judged.jsonl", work / "cache"
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
        "--mode",
        "per-factor",
        "--quiet",
        *[a for s in sets for a in ("--set", s)],
    ]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run(cmd, env={**ENV, "PYTHONPATH": str(src)}, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    rec = json.loads(out.read_text().splitlines()[0])
    return {
        "wall_s": round(wall, 2),
        "load_1min": round(load, 2),
        "prompt_version": rec.get("prompt_version"),
        **rec["usage"],
        "factors": rec["factors"],
        "failures": rec.get("failures", {}),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--transcripts", help="transcripts JSON lines; the first one is judged (default: the smoke corpus's first)"
    )
    p.add_argument("--before", default="HEAD", help="git ref of the 'before' arm's src/ (HEAD: this commit)")
    p.add_argument("--weights", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads in all, both arms")
    p.add_argument(
        "--before-set",
        nargs="*",
        default=["lm.servers=1"],
        help="--set overrides of the 'before' arm (default: today's path, one worker, calls in order)",
    )
    p.add_argument(
        "--after-set",
        nargs="*",
        default=["lm.servers=1", "lm.slots=6", "lm.slot_kv=shared"],
        help="--set overrides of the 'after' arm (default: one worker with 6 parallel slots sharing the conversation's KV cells)",
    )
    p.add_argument("--repeats", type=int, default=1, help="runs per arm, interleaved")
    p.add_argument("--models", default=str(ROOT / "models"))
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_judge_") as tmp:
        tmp_path = Path(tmp)
        first = first_transcript(args.transcripts, tmp_path)
        srcs = {"before": export_commit(args.before, tmp_path / "before"), "after": ROOT / "src"}
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for i in range(args.repeats):
            for arm in ("before", "after") if i % 2 == 0 else ("after", "before"):
                work = tmp_path / f"{arm}{i}"
                work.mkdir()
                sets = [f"lm.n_threads={args.threads}", *(args.before_set if arm == "before" else args.after_set)]
                runs[arm].append(judge_once(srcs[arm], first, args.weights, sets, work, Path(args.models)))
                print(arm, {k: v for k, v in runs[arm][-1].items() if k not in ("factors", "failures")}, flush=True)
    med = {
        arm: {
            k: statistics.median(r[k] for r in rs)
            for k in ("wall_s", "model_s", "prompt_tokens", "completion_tokens", "calls")
        }
        for arm, rs in runs.items()
    }
    pairs = [
        (b["factors"][n], a["factors"][n])
        for b, a in zip(runs["before"], runs["after"], strict=False)
        for n in b["factors"]
    ]
    result = {
        "transcripts": args.transcripts,
        "before": args.before,
        "weights": args.weights,
        "threads": args.threads,
        "before_set": args.before_set,
        "after_set": args.after_set,
        "date": time.strftime("%Y-%m-%d"),
        "repeats": args.repeats,
        "cpu_count": os.cpu_count(),
        "runs": runs,
        "median": med,
        "ratio_before_over_after": {
            k: round(med["before"][k] / med["after"][k], 3) if med["after"][k] else None
            for k in ("wall_s", "model_s", "prompt_tokens", "completion_tokens")
        },
        "ratings_equal": sum(b == a for b, a in pairs),
        "ratings_compared": len(pairs),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(
        json.dumps(
            {k: result[k] for k in ("median", "ratio_before_over_after", "ratings_equal", "ratings_compared")}, indent=2
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
