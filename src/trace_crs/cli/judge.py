"""``trace-crs judge``: CoRE, the user-centric LLM evaluator, on any CRS transcript (seeds 001/002 §4).

* ``judge core --transcripts T.jsonl --out O.jsonl [--set lm.<key>=…] [--n N --seed N]
  [--mode per-factor|one-call] [--aggregator avg|debate|mixture] [--mixture TABLE.yaml]`` —
  one line per transcript (:mod:`trace_crs.judge.records`), written atomically in input order;
  finished transcripts are appended to ``O.jsonl.partial`` as they complete, so a killed run
  resumes where it stopped (and a rerun reuses ``O.jsonl`` itself).
* ``judge transcripts --dialogues F [--kb D] [--predictions P --system NAME | --run DIR]
  [--n N --seed N] --out T`` or ``judge transcripts --generic LOG --out T`` — export to the
  transcript format (a seeded subset of dialogues, the same for every system of a run);
  ``judge transcripts --live DIR [--live DIR2] [--n N] --out T`` collects the live conversations
  ``converse`` wrote (only their live turns are rated, :func:`trace_crs.judge.adapters.from_live`).
* ``judge agree --pred P.jsonl [--human H.jsonl] [--judge-b B.jsonl] [--repeat R.jsonl …]
  [--out A.json]`` — meta-evaluation (:mod:`trace_crs.judge.agree`); with several annotators per
  dialogue (``annotator`` on each human line) the tables are computed per annotator and against
  the mean over annotators.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from pathlib import Path
from typing import Any

from trace_crs.cli import add_group
from trace_crs.cli.arguments import KB_HELP, add_dialogues, add_kb, add_n, add_out, add_quiet, add_seed, add_set
from trace_crs.cli.judge_agree import run_agree
from trace_crs.cli.judge_transcripts import dump_records, run_transcripts, seeded_subset
from trace_crs.cli.judge_validity import register as register_validity
from trace_crs.cli.score import refuse_inputs
from trace_crs.errors import DataError, UsageError


def _lm_overrides(pairs: list[str] | None) -> list[str]:
    out = []
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("lm."):
            raise UsageError(f"--set {pair!r}: expected lm.<key>=<value> (e.g. lm.model=openai/gpt-4o-mini)")
        out.append(f"{key[3:]}={value}")
    return out


# A whole conversation plus a rubric (or all twelve, in one-call mode) overflows the local
# preset's 4,096-token context; ``--set lm.n_ctx=…`` still wins.
JUDGE_LM_DEFAULTS: dict[str, Any] = {"n_ctx": 8192}


_OVERFLOW = re.compile(r"exceeds? (?:the )?context window|maximum context length|context_length_exceeded", re.I)


def context_overflow(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says a prompt overflowed the model's
    context: litellm's ``ContextWindowExceededError``, or the HTTP 400 of a llama.cpp server
    ("Requested tokens (n) exceed context window of m") that litellm passes on as a bad request."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if "ContextWindowExceeded" in type(cur).__name__ or _OVERFLOW.search(str(cur)):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


def open_judge_lm(cfg: Any, stack: contextlib.ExitStack) -> tuple[Any, str]:
    """``(DSPy LM, judge id)`` for an LM config; the LM stays open for the ``stack``'s life."""
    from trace_crs.lm.backend import model_id, open_lm

    return stack.enter_context(open_lm(cfg)), model_id(cfg)


def judge_workers(lms: Any) -> int:
    """Transcripts judged at once by default (:func:`trace_crs.lm.config.requests_at_once`)."""
    from trace_crs.lm.config import requests_at_once

    return requests_at_once(*lms)


def run_core(args: argparse.Namespace) -> int:
    """``judge core``."""
    from trace_crs.judge.aggregate import load_mixture
    from trace_crs.judge.factors import FACTORS
    from trace_crs.judge.run import judge_all, settings_of
    from trace_crs.judge.transcript import load_transcripts
    from trace_crs.kb.store import iter_jsonl
    from trace_crs.lm.config import resolve_lm_config

    out, src = Path(args.out), Path(args.transcripts)
    if not src.exists():
        raise FileNotFoundError(f"transcripts file {src} not found")
    partial = out.with_name(out.name + ".partial")
    refuse_inputs([out, partial], [args.transcripts, args.mixture])
    if (args.aggregator == "mixture") != bool(args.mixture):
        raise UsageError("--aggregator mixture needs --mixture TABLE.yaml (and --mixture needs --aggregator mixture)")
    if args.n is not None and args.n < 1:
        raise UsageError(f"--n must be >= 1, got {args.n}")
    if args.mode == "logprob" and args.aggregator == "debate":
        raise UsageError("--aggregator debate argues from the factors' rationales; --mode logprob writes none")
    base = _lm_overrides(args.set)
    transcripts = seeded_subset(load_transcripts(src), args.n, args.seed)
    from trace_crs.judge import domain as judge_domain

    if args.domain:
        try:
            judge_domain.resolve(args.domain)
        except ValueError as exc:
            raise UsageError(f"--domain: {exc}") from None
    for t in [] if args.domain else transcripts:  # a transcript's own domain: a data error at its line
        try:
            judge_domain.resolve(t.domain)
        except ValueError as exc:
            line = next(n for n, rec in iter_jsonl(src) if rec.get("dialogue_id") == t.dialogue_id)
            raise DataError(f"{exc} (or judge with --domain)", file=str(src), line=line, field="domain") from None
    unset = sum(t.domain is None for t in transcripts)
    if unset and not args.domain and not args.quiet:  # e.g. a generic log of a movie CRS: say what it is judged as
        print(
            f"note: {unset} transcript(s) name no domain and are judged as {judge_domain.resolve(None)} "
            "(give --domain, e.g. --domain movies, for another CRS's logs)",
            file=sys.stderr,
        )
    with contextlib.ExitStack() as stack:
        if args.mixture:
            table, choice = load_mixture(args.mixture)
            opened = {
                name: open_judge_lm(
                    resolve_lm_config({**JUDGE_LM_DEFAULTS, **cfg}, base, f"{args.mixture}: judges.{name}"), stack
                )
                for name, cfg in table.items()
                if name in set(choice.values())
            }
            lms = {n: opened[choice[n]][0] for n in FACTORS}
            judges = {n: opened[choice[n]][1] for n in FACTORS}
            debate_lm = None
        else:
            lm, name = open_judge_lm(resolve_lm_config(JUDGE_LM_DEFAULTS, base), stack)
            lms, judges, debate_lm = {n: lm for n in FACTORS}, {n: name for n in FACTORS}, lm
        settings = settings_of(
            {**judges, "debate": judges[FACTORS[0]]},
            args.mode,
            args.aggregator,
            args.retries,
            args.max_rounds,
            args.domain,
            args.persuasiveness,
            args.rating,
        )
        workers = args.workers or judge_workers(lms.values())

        finished = [0]

        def progress(i: int, n: int, hit: bool) -> None:
            finished[0] = i
            if not args.quiet:
                print(f"\rjudged {i}/{n}{' (cached)' if hit else ''}   ", end="" if i < n else "\n", file=sys.stderr)

        try:
            records = judge_all(
                transcripts,
                lms,
                settings,
                partial,
                reuse_from=[out],
                debate_lm=debate_lm,
                progress=progress,
                workers=workers,
            )
        except Exception as exc:
            if not context_overflow(exc):
                raise
            raise UsageError(
                f"a judge prompt of transcript {transcripts[finished[0]].dialogue_id!r} does not fit the model's "
                f"context window ({str(exc)[-160:]}); raise it with --set lm.n_ctx=<tokens> or judge with "
                "--mode per-factor (the transcripts judged so far are kept in the .partial file)"
            ) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    dump_records(records, out)
    partial.unlink(missing_ok=True)
    failed = sum(bool(r["failures"]) for r in records)
    if failed and not args.quiet:
        print(
            f"warning: {failed} transcript(s) have factors the judge failed to rate (see 'failures')", file=sys.stderr
        )
    print(out)
    return 0


def register(subparsers) -> None:
    """Add ``trace-crs judge {core,transcripts,agree}``."""
    from trace_crs.judge import AGGREGATORS, MODES, RATINGS

    sub = add_group(subparsers, "judge", "CoRE: judge any CRS transcript with an LLM (12 factors, debate)")
    p = sub.add_parser("core", help="rate transcripts on the 12 CoRE factors and aggregate them")
    p.add_argument("--transcripts", required=True, help="transcripts JSON lines (trace_crs.judge.transcript)")
    add_out(p, "output JSON lines, one judged record per transcript", required=True)
    add_set(p, "LM setting, e.g. lm.model=openai/gpt-4o-mini", metavar="lm.KEY=VALUE")
    add_n(p, "judge a seeded subset of N transcripts")
    add_seed(p, "seed of the subset")
    p.add_argument(
        "--mode",
        choices=MODES,
        default="per-factor",
        help="one call per factor with a rationale (the paper's), one call for all factors, or one 1-token call "
        "per factor rated from the rating tokens' probabilities (logprob; judge/geval.py)",
    )
    p.add_argument(
        "--rating",
        choices=RATINGS,
        default="expected",
        help="logprob mode: the expected score under the rating distribution, or its most probable rating",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="transcripts judged at once (default: one per local server process, else 1); records do not depend on it",
    )
    p.add_argument("--aggregator", choices=AGGREGATORS, default="avg", help="CoRE-Avg only, + debate, or mixture")
    p.add_argument("--mixture", help="mixture table YAML (judges and factor -> judge)")
    p.add_argument(
        "--domain",
        help="judge every transcript in this domain (travel, movies; default: each "
        "transcript's own domain field, travel when absent)",
    )
    p.add_argument("--retries", type=int, default=2, help="re-asks after an unparseable reply")
    p.add_argument("--max-rounds", type=int, default=4, help="debate round limit")
    p.add_argument(
        "--persuasiveness",
        action="store_true",
        help="also rate Persuasiveness (0-2, one call per transcript; CoRE Table 7's conventional metric)",
    )
    add_quiet(p, "no progress on stderr")
    p.set_defaults(func=run_core)
    p = sub.add_parser("transcripts", help="export Trace dialogues, run predictions or a CRS log as transcripts")
    add_dialogues(p, "Trace dialogues JSON lines")
    add_kb(p, f"{KB_HELP} (names items, resolves citations)")
    p.add_argument("--predictions", help="a predictions file to splice into the dialogues")
    p.add_argument("--system", help="name of the system that produced --predictions")
    p.add_argument("--run", help="a run directory: every predictions/<baseline>.jsonl")
    p.add_argument("--dialogue-ids", help="JSON list of dialogue ids to export (default: the run's, else all)")
    add_n(p, "export a seeded subset of N dialogues (the same for every system)")
    add_seed(p, "seed of the subset")
    p.add_argument("--generic", help="a CRS log in the generic {dialogue_id, turns: [{role, text}]} layout")
    p.add_argument("--live", action="append", help="a converse output directory (its judge/*.jsonl); repeatable")
    add_out(p, "transcripts JSON lines to write", required=True)
    p.set_defaults(func=run_transcripts)
    p = sub.add_parser("agree", help="meta-evaluate judged transcripts against human labels or another judge")
    p.add_argument("--pred", required=True, help="judged records (judge core output)")
    p.add_argument("--human", help="human labels JSON lines keyed by dialogue_id")
    p.add_argument(
        "--human-map",
        help="YAML mapping the --human file's own label names and scales onto CoRE's factors / overall "
        "(judge/label_map.py; e.g. judge/data/label_maps/crsarena_eval.yaml)",
    )
    p.add_argument("--judge-b", help="a second judge's records (two-judge agreement)")
    p.add_argument("--repeat", action="append", help="the same judge rerun (stability); repeatable")
    p.add_argument(
        "--select",
        action="append",
        help="another judge's records: choose each factor's judge among "
        "--pred and these by QWK against --human (CoRE §7.2); repeatable",
    )
    p.add_argument("--mixture-out", help="write the selection as a mixture table YAML (judge core --mixture)")
    add_out(p, "JSON file of every table (default: stdout)")
    add_quiet(p, "no tables on stderr")
    p.set_defaults(func=run_agree)
    register_validity(sub)
