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
import json
import sys
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_atomic
from trace_crs.cli import add_group, add_seed
from trace_crs.cli.score import refuse_inputs
from trace_crs.errors import UsageError


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


def open_judge_lm(cfg: Any, stack: contextlib.ExitStack) -> tuple[Any, str]:
    """``(DSPy LM, judge id)`` for an LM config; the LM stays open for the ``stack``'s life."""
    from trace_crs.lm.backend import model_id, open_lm

    return stack.enter_context(open_lm(cfg)), model_id(cfg)


def _dump(records: list[dict], path: Path) -> None:
    def write(tmp: Path) -> None:
        tmp.write_text(
            "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )

    write_atomic(path, write)


def seeded_subset(items: list, n: int | None, seed: int) -> list:
    """``n`` items drawn without replacement by ``default_rng(seed)``, in their original order
    (all of them when ``n`` is None)."""
    from trace_crs.dialogues.subset import select_subset

    if n is not None and n < 1:
        raise UsageError(f"--n must be >= 1, got {n}")
    return select_subset(items, n, seed)


def run_core(args: argparse.Namespace) -> int:
    """``judge core``."""
    from trace_crs.judge.aggregate import load_mixture
    from trace_crs.judge.factors import FACTORS
    from trace_crs.judge.run import judge_all, settings_of
    from trace_crs.judge.transcript import load_transcripts
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
    base = _lm_overrides(args.set)
    transcripts = seeded_subset(load_transcripts(src), args.n, args.seed)
    from trace_crs.judge import domain as judge_domain

    for value in {args.domain} if args.domain else {t.domain for t in transcripts}:
        try:
            judge_domain.resolve(value)
        except ValueError as exc:
            raise UsageError(f"{'--domain' if args.domain else f'{src}: domain'}: {exc}") from None
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
        )

        def progress(i: int, n: int, hit: bool) -> None:
            if not args.quiet:
                print(f"\rjudged {i}/{n}{' (cached)' if hit else ''}   ", end="" if i < n else "\n", file=sys.stderr)

        try:
            records = judge_all(
                transcripts, lms, settings, partial, reuse_from=[out], debate_lm=debate_lm, progress=progress
            )
        except Exception as exc:
            if "ContextWindowExceeded" not in type(exc).__name__:
                raise
            raise UsageError(
                f"a judge prompt does not fit the model's context window ({str(exc)[-160:]}); "
                "raise it with --set lm.n_ctx=<tokens> or judge with --mode per-factor"
            ) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    _dump(records, out)
    partial.unlink(missing_ok=True)
    failed = sum(bool(r["failures"]) for r in records)
    if failed and not args.quiet:
        print(
            f"warning: {failed} transcript(s) have factors the judge failed to rate (see 'failures')", file=sys.stderr
        )
    print(out)
    return 0


def run_transcripts(args: argparse.Namespace) -> int:
    """``judge transcripts``."""
    from trace_crs.judge import adapters
    from trace_crs.judge.transcript import transcript_record
    from trace_crs.kb.store import iter_jsonl

    out = Path(args.out)
    refuse_inputs([out], [args.generic, args.dialogues, args.kb, args.predictions, args.run, *(args.live or [])])
    if args.generic:
        if args.dialogues or args.predictions or args.run or args.live:
            raise UsageError("--generic converts a CRS log on its own; drop --dialogues/--predictions/--run/--live")
        records = [adapters.from_generic(rec, args.generic, line) for line, rec in iter_jsonl(args.generic)]
    elif args.live:
        if args.dialogues or args.predictions or args.run:
            raise UsageError("--live reads converse runs on their own; drop --dialogues/--predictions/--run")
        records = _from_live(args)
    else:
        records = _from_trace(args, adapters)
    if not records:
        raise UsageError("nothing to export")
    _dump([transcript_record(t) for t in records], out)
    print(out)
    return 0


def _from_trace(args: argparse.Namespace, adapters: Any) -> list:
    from trace_crs.cli.score import restrict
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb import load_kb
    from trace_crs.metrics.predictions import read_predictions

    if not args.dialogues:
        raise UsageError("give --dialogues F (Trace) or --generic LOG")
    if (args.predictions or args.run) and not args.kb:
        raise UsageError("--predictions/--run need --kb (items and cited reviews come from it)")
    if args.predictions and not args.system:
        raise UsageError("--predictions needs --system NAME (the baseline that produced them)")
    kb = load_kb(args.kb) if args.kb else None
    corpus = load_dialogues(args.dialogues)
    ids = args.dialogue_ids or (str(Path(args.run) / "dialogue_ids.json") if args.run else None)
    dialogues = restrict(corpus, ids if ids and Path(ids).exists() else None)
    dialogues = seeded_subset(dialogues, args.n, args.seed)
    outside = {d["dialogue_id"] for d in corpus} - {d["dialogue_id"] for d in dialogues}
    sources = (
        [(args.system, Path(args.predictions))]
        if args.predictions
        else [(p.stem, p) for p in sorted((Path(args.run) / "predictions").glob("*.jsonl"))]
        if args.run
        else []
    )
    if not sources:
        return [adapters.from_dialogue(d, kb) for d in dialogues]
    if kb is None:  # checked above: --predictions/--run need --kb
        raise UsageError("--predictions/--run need --kb (items and cited reviews come from it)")
    out = []
    for system, path in sources:
        preds = read_predictions(path, dialogues, kb, outside=outside)
        out += [adapters.from_predictions(d, preds, kb, system) for d in dialogues]
    return out


def _from_live(args: argparse.Namespace) -> list:
    """The judge transcripts ``converse`` wrote (``<dir>/judge/<baseline>.jsonl``) of each
    ``--live`` run: per run, a seeded subset of ``--n`` dialogues, the same for every baseline
    of that run (the dialogues every baseline conversed on)."""
    from trace_crs.judge.transcript import load_transcripts

    out = []
    for run in args.live:
        files = sorted((Path(run) / "judge").glob("*.jsonl"))
        if not files:
            raise UsageError(f"--live {run}: no judge/<baseline>.jsonl (run trace-crs converse into it first)")
        per_system = {f.stem: load_transcripts(f) for f in files}
        common = set.intersection(*({t.dialogue_id.partition("/")[2] for t in ts} for ts in per_system.values()))
        chosen = set(seeded_subset(sorted(common), args.n, args.seed))
        out += [t for ts in per_system.values() for t in ts if t.dialogue_id.partition("/")[2] in chosen]
    return out


def _plain(value: Any) -> Any:
    """JSON-ready: DataFrames as lists of rows, numpy scalars as Python numbers, NaN as null."""
    import math

    if hasattr(value, "to_dict"):
        value = value.to_dict(orient="records")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def _select(args: argparse.Namespace, pred: Any) -> Any:
    """``--select``: per factor, the candidate (``--pred`` and each ``--select`` file) with the
    highest QWK against ``--human``; ``--mixture-out`` writes the mixture table."""
    import yaml

    from trace_crs.judge.records import read_ratings
    from trace_crs.judge.select import mixture_table, select_judges
    from trace_crs.kb.store import iter_jsonl

    if not args.human:
        raise UsageError("--select needs --human labels (the judges are chosen by QWK against them)")
    paths = [Path(args.pred), *(Path(p) for p in args.select)]
    names = [p.stem for p in paths]
    if len(set(names)) != len(names):
        raise UsageError(f"--select: candidate files need distinct names (stems), got {names}")
    frames = {n: (pred if i == 0 else read_ratings(p)) for i, (n, p) in enumerate(zip(names, paths, strict=False))}
    models = {n: str(next(iter_jsonl(p))[1].get("judge") or n) for n, p in zip(names, paths, strict=False)}
    from trace_crs.judge import agree

    human = read_ratings(args.human, human=True)
    if agree.several_annotators(human):  # judges are chosen against the mean label
        human = agree.mean_over_annotators(human)
    selection = select_judges(frames, human)
    if args.mixture_out:
        text = yaml.safe_dump(mixture_table(selection, models, args.human), sort_keys=False)
        write_atomic(Path(args.mixture_out), lambda tmp: tmp.write_text(text))
    return selection


def run_agree(args: argparse.Namespace) -> int:
    """``judge agree``."""
    from trace_crs.judge import agree
    from trace_crs.judge.records import read_ratings

    out = Path(args.out) if args.out else None
    if out:
        refuse_inputs([out], [args.pred, args.human, args.judge_b, *(args.repeat or []), *(args.select or [])])
    if args.mixture_out:
        refuse_inputs([Path(args.mixture_out)], [args.pred, args.human, *(args.select or [])])
        if not args.select:
            raise UsageError("--mixture-out needs --select (the candidate judges)")
    pred = read_ratings(args.pred)
    tables: dict[str, Any] = {
        "coupling_judge": agree.coupling(pred),
        "coupling_matrix_judge": agree.coupling_matrix(pred),
        "cost": agree.cost(pred),
    }
    if args.human:
        human = read_ratings(args.human, human=True)
        if agree.several_annotators(human):  # per annotator first, then against the mean label
            tables |= {
                "factors_per_annotator": agree.per_annotator(pred, human, agree.factor_agreement),
                "overall_per_annotator": agree.per_annotator(pred, human, agree.overall_agreement),
            }
            human = agree.mean_over_annotators(human)
        tables |= {
            "factors": agree.factor_agreement(pred, human),
            "overall": agree.overall_agreement(pred, human),
            "coupling_human": agree.coupling(human),
            "coupling_matrix_human": agree.coupling_matrix(human),
        }
        if pred["system"].notna().any() and human["system"].notna().any():
            tables["ranking_vs_human"] = agree.ranking_agreement(pred, human)
    if args.judge_b:
        other = read_ratings(args.judge_b)
        tables |= {
            "factors_vs_judge_b": agree.factor_agreement(pred, other),
            "ranking_vs_judge_b": agree.ranking_agreement(pred, other),
        }
    if args.repeat:
        tables["stability"] = agree.stability([pred, *(read_ratings(r) for r in args.repeat)])
    if args.select:
        tables["selection"] = _select(args, pred)
    as_json = {k: _plain(v) for k, v in tables.items()}
    if not args.quiet:
        for k, v in tables.items():
            print(f"== {k}\n{v.round(3).to_string(index=False) if hasattr(v, 'round') else v}", file=sys.stderr)
    text = json.dumps(as_json, indent=1, sort_keys=True, allow_nan=False) + "\n"
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, lambda tmp: tmp.write_text(text))
        print(out)
    else:
        print(text, end="")
    return 0


def register(subparsers) -> None:
    """Add ``trace-crs judge {core,transcripts,agree}``."""
    from trace_crs.judge import AGGREGATORS, MODES

    sub = add_group(subparsers, "judge", "CoRE: judge any CRS transcript with an LLM (12 factors, debate)")
    p = sub.add_parser("core", help="rate transcripts on the 12 CoRE factors and aggregate them")
    p.add_argument("--transcripts", required=True, help="transcripts JSON lines (trace_crs.judge.transcript)")
    p.add_argument("--out", required=True, help="output JSON lines, one judged record per transcript")
    p.add_argument(
        "--set", action="append", metavar="lm.KEY=VALUE", help="LM setting, e.g. lm.model=openai/gpt-4o-mini"
    )
    p.add_argument("--n", type=int, help="judge a seeded subset of N transcripts")
    add_seed(p, "seed of the subset")
    p.add_argument(
        "--mode", choices=MODES, default="per-factor", help="one call per factor (paper) or one call for all"
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
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run_core)
    p = sub.add_parser("transcripts", help="export Trace dialogues, run predictions or a CRS log as transcripts")
    p.add_argument("--dialogues", help="Trace dialogues JSON lines")
    p.add_argument("--kb", help="KB directory (names items, resolves citations)")
    p.add_argument("--predictions", help="a predictions file to splice into the dialogues")
    p.add_argument("--system", help="name of the system that produced --predictions")
    p.add_argument("--run", help="a run directory: every predictions/<baseline>.jsonl")
    p.add_argument("--dialogue-ids", help="JSON list of dialogue ids to export (default: the run's, else all)")
    p.add_argument("--n", type=int, help="export a seeded subset of N dialogues (the same for every system)")
    add_seed(p, "seed of the subset")
    p.add_argument("--generic", help="a CRS log in the generic {dialogue_id, turns: [{role, text}]} layout")
    p.add_argument("--live", action="append", help="a converse output directory (its judge/*.jsonl); repeatable")
    p.add_argument("--out", required=True, help="transcripts JSON lines to write")
    p.set_defaults(func=run_transcripts)
    p = sub.add_parser("agree", help="meta-evaluate judged transcripts against human labels or another judge")
    p.add_argument("--pred", required=True, help="judged records (judge core output)")
    p.add_argument("--human", help="human labels JSON lines keyed by dialogue_id")
    p.add_argument("--judge-b", help="a second judge's records (two-judge agreement)")
    p.add_argument("--repeat", action="append", help="the same judge rerun (stability); repeatable")
    p.add_argument(
        "--select",
        action="append",
        help="another judge's records: choose each factor's judge among "
        "--pred and these by QWK against --human (CoRE §7.2); repeatable",
    )
    p.add_argument("--mixture-out", help="write the selection as a mixture table YAML (judge core --mixture)")
    p.add_argument("--out", help="JSON file of every table (default: stdout)")
    p.add_argument("--quiet", action="store_true", help="no tables on stderr")
    p.set_defaults(func=run_agree)
