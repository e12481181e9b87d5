"""Judging a list of transcripts, resumably (the engine of ``trace-crs judge core``).

Each transcript is rated on the twelve factors (:func:`trace_crs.judge.core.rate_transcript`),
aggregated (CoRE-Avg always; the debate with ``aggregator="debate"``; the per-factor mixture when
``lms`` maps factors to different judges) and turned into one record
(:func:`trace_crs.judge.records.judged_record`) with the LM usage of its calls.

Resuming: a finished record is appended (one line, flushed and fsynced) to a cache file beside the
output; its ``key`` hashes the transcript and everything that decides the answer (judge models,
mode, aggregator, prompt and rubric versions, retries, rounds).  A rerun reuses every cached line
whose key matches and judges the rest; the LM request cache makes a repeated call free as well.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import dspy

from trace_crs.judge.core import PROMPT_VERSION, CoreJudge, RateAllFactors, RateFactor
from trace_crs.judge.debate import debate, debate_config
from trace_crs.judge.domain import check_localised, current, domain_file, judging, localise
from trace_crs.judge.factors import FACTORS, rubric_file
from trace_crs.judge.geval import PROMPT_VERSION as LOGPROB_VERSION
from trace_crs.judge.geval import judge_prefix
from trace_crs.judge.persuasive import persuasive_version, rate_persuasiveness, rate_persuasiveness_logprob
from trace_crs.judge.records import judged_record
from trace_crs.judge.transcript import Transcript, transcript_record
from trace_crs.kb.store import iter_jsonl
from trace_crs.lm.usage import recording_usage


def settings_of(
    judges: Mapping[str, str],
    mode: str,
    aggregator: str,
    retries: int,
    max_rounds: int,
    domain: str | None = None,
    persuasiveness: bool = False,
    rating: str = "expected",
) -> dict[str, Any]:
    """What decides a record besides the transcript (``judges``: factor → judge model id, plus
    ``debate`` → the debate model; ``domain``: a ``--domain`` override of the transcripts' own;
    ``persuasiveness``: also rate it, :mod:`trace_crs.judge.persuasive` — a key only when on, so
    records judged without it keep their keys)."""
    extra: dict[str, Any] = {"persuasiveness": persuasive_version(mode)} if persuasiveness else {}
    if mode == "logprob":  # a key only in that mode, so records of the other modes keep their keys
        extra["rating"] = rating
    return {
        **extra,
        "judges": dict(sorted(judges.items())),
        "mode": mode,
        "aggregator": aggregator,
        "retries": retries,
        "max_rounds": max_rounds if aggregator == "debate" else None,
        "prompt_version": LOGPROB_VERSION if mode == "logprob" else PROMPT_VERSION,
        "rubrics": rubric_file()["version"],
        "debate_version": debate_config()["version"],
        "domains": domain_file()["version"],
        "domain": domain,
    }


def core_judge(mode: str, retries: int, rating: str = "expected") -> CoreJudge:
    """:class:`~trace_crs.judge.core.CoreJudge` whose instructions speak the current domain
    (:mod:`trace_crs.judge.domain`; the signatures' fields are unchanged)."""
    judge, domain = CoreJudge(mode, retries, rating), current()
    for name, sig in (("rate_one", RateFactor), ("rate_all", RateAllFactors)):
        setattr(judge, name, dspy.Predict(sig.with_instructions(check_localised(localise(sig.instructions), domain))))
    return judge


def record_key(t: Transcript, settings: Mapping[str, Any]) -> str:
    """SHA-256 (16 hex) of the transcript and the settings."""
    blob = json.dumps({"t": transcript_record(t), "s": settings}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def judge_one(
    t: Transcript, lms: Mapping[str, dspy.BaseLM], settings: Mapping[str, Any], debate_lm: dspy.BaseLM | None = None
) -> dict[str, Any]:
    """The record of one transcript (factor ratings, aggregates, usage)."""
    with recording_usage() as tally, judging(settings.get("domain") or t.domain):
        judge = core_judge(settings["mode"], settings["retries"], settings.get("rating", "expected"))
        results = judge(transcript=t, lms=lms).results
        argued = (
            debate(t, results, debate_lm, settings["max_rounds"], settings["retries"])
            if settings["aggregator"] == "debate"
            else None
        )
        persuasive = None
        if "persuasiveness" in settings and settings["mode"] == "logprob":  # on the last factor's worker
            persuasive = rate_persuasiveness_logprob(t, lms[FACTORS[-1]], settings["rating"], judge_prefix())
        elif "persuasiveness" in settings:
            persuasive = rate_persuasiveness(t, debate_lm or lms[FACTORS[0]], settings["retries"])
    judges = settings["judges"]
    single = len({judges[n] for n in FACTORS}) == 1
    meta = {
        "judge": judges[FACTORS[0]] if single else "mixture",
        "mode": settings["mode"],
        **({"rating": settings["rating"]} if "rating" in settings else {}),
        "aggregator": settings["aggregator"],
        "prompt_version": settings["prompt_version"],
        "key": record_key(t, settings),
    }
    usage = {
        "calls": tally.calls,
        "prompt_tokens": tally.prompt_tokens,
        "completion_tokens": tally.completion_tokens,
        "cost_usd": round(tally.cost_usd, 8),
        "model_s": round(tally.model_s, 3),
    }
    rec = {**judged_record(t.dialogue_id, t.system, results, argued, meta, usage), "recall": t.recall}
    if persuasive is not None:
        rec["persuasiveness"] = persuasive["rating"]  # 0-2, None after the last unusable reply
        rec["persuasiveness_attempts"] = {k: persuasive[k] for k in ("attempts", "truncated", "error")}
    return rec


def cached_records(paths: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """Records by key from existing output / cache files (unreadable trailing lines are ignored:
    a run killed mid-write leaves at most one)."""
    out: dict[str, dict[str, Any]] = {}
    for p in paths:
        if not p.exists():
            continue
        try:
            for _, rec in iter_jsonl(p):
                if isinstance(rec, dict) and isinstance(rec.get("key"), str):
                    out[rec["key"]] = rec
        except ValueError:
            continue
    return out


def judge_all(
    transcripts: Sequence[Transcript],
    lms: Mapping[str, dspy.BaseLM],
    settings: Mapping[str, Any],
    cache: Path,
    reuse_from: Sequence[Path] = (),
    debate_lm: dspy.BaseLM | None = None,
    progress: Callable[[int, int, bool], None] | None = None,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """Every transcript's record, in input order; finished ones are appended to ``cache``.

    ``workers`` > 1 judges that many transcripts at once, each in its own thread; a local LM pool
    gives each thread its own server process (:class:`trace_crs.lm.server.ServerPool`), so all
    calls of one transcript go to one worker and share its KV cache.  The records do not depend on
    ``workers`` (same requests; the output keeps input order; the cache file's order may differ)."""
    done = cached_records([*reuse_from, cache])
    cache.parent.mkdir(parents=True, exist_ok=True)
    out: list[dict[str, Any] | None] = [None] * len(transcripts)
    lock, finished = threading.Lock(), [0]
    with open(cache, "a", encoding="utf-8") as fh:

        def one(i: int) -> None:
            t = transcripts[i]
            key = record_key(t, settings)
            hit = key in done
            rec = done[key] if hit else judge_one(t, lms, settings, debate_lm)
            with lock:
                if not hit:
                    fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                out[i] = rec
                finished[0] += 1
                if progress:
                    progress(finished[0], len(transcripts), hit)

        if workers <= 1:
            for i in range(len(transcripts)):
                one(i)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge-t") as pool:
                list(pool.map(lambda i: contextvars.copy_context().run(one, i), range(len(transcripts))))
    return [r for r in out if r is not None]
