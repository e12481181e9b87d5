"""``trace-crs judge transcripts``: export Trace dialogues, a run's predictions, a generic CRS
log or ``converse``'s live conversations to the CoRE transcript format (seeds 001/002 §4;
:mod:`trace_crs.judge.transcript`), and the seeded subset and JSON-lines writer ``judge core``
shares with it."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from trace_crs.atomic import write_atomic
from trace_crs.cli.score import refuse_inputs
from trace_crs.errors import DataError, UsageError


def dump_records(records: list[dict], path: Path) -> None:
    """``records`` as sorted-key JSON lines, written atomically (:func:`trace_crs.atomic.write_atomic`)."""

    def write(tmp: Path) -> None:
        tmp.write_text(
            "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )

    write_atomic(path, write)


def seeded_subset(items: list, n: int | None, seed: int, what: str = "transcripts") -> list:
    """``n`` items drawn without replacement by ``default_rng(seed)``, in their original order
    (all of them when ``n`` is None; a warning naming both numbers when ``n`` is above them)."""
    from trace_crs.cli.guard import warn_capped
    from trace_crs.dialogues.subset import select_subset

    if n is not None and n < 1:
        raise UsageError(f"--n must be >= 1, got {n}")
    warn_capped("--n", n, len(items), what)
    return select_subset(items, n, seed)


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
        records = seeded_subset(_from_generic(args.generic, adapters, iter_jsonl), args.n, args.seed)
        if not records:  # an empty log is bad data, named (was "nothing to export", exit 2)
            from trace_crs.errors import DataError

            raise DataError("no transcript (an empty log)", file=str(args.generic))
    elif args.live:
        if args.dialogues or args.predictions or args.run:
            raise UsageError("--live reads converse runs on their own; drop --dialogues/--predictions/--run")
        records = _from_live(args)
    else:
        records = _from_trace(args, adapters)
    if not records:
        raise UsageError("nothing to export")
    _refuse_duplicates([t.dialogue_id for t in records], ", ".join(args.live or []))
    dump_records([transcript_record(t) for t in records], out)
    print(out)
    return 0


def _from_generic(path: str, adapters: Any, iter_jsonl: Any) -> list:
    """Each line of a generic CRS log as a transcript; a ``dialogue_id`` repeated in the log is
    refused at its second line (``judge core`` keys its output by it)."""
    out: list = []
    seen: dict[str, int] = {}
    for line, rec in iter_jsonl(path):
        t = adapters.from_generic(rec, path, line)
        if t.dialogue_id in seen:
            raise DataError(
                f"duplicate {t.dialogue_id!r} (first on line {seen[t.dialogue_id]})",
                file=path,
                line=line,
                field="dialogue_id",
            )
        seen[t.dialogue_id] = line
        out.append(t)
    return out


def _refuse_duplicates(ids: list[str], live: str) -> None:
    """Two transcripts with one id (e.g. the same baseline in two ``--live`` runs) would make a
    file ``judge core`` refuses: say so here, naming the id."""
    dup = next((i for i, n in Counter(ids).items() if n > 1), None)
    if dup is not None:
        where = f" (--live {live}: the same baseline and dialogue in two runs?)" if live else ""
        raise UsageError(f"two transcripts would have the id {dup!r}{where}")


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
    if args.run:  # the run's replies belong to the dialogues and KB it evaluated
        from trace_crs.cli.run_inputs import check_run_inputs

        check_run_inputs(args.run, {"dialogues": args.dialogues, "kb/pois.jsonl": args.kb})
    kb = load_kb(args.kb) if args.kb else None
    corpus = load_dialogues(args.dialogues)
    ids = args.dialogue_ids or (str(Path(args.run) / "dialogue_ids.json") if args.run else None)
    dialogues = restrict(corpus, ids if ids and Path(ids).exists() else None)
    dialogues = seeded_subset(dialogues, args.n, args.seed, "dialogues")
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
        chosen = set(seeded_subset(sorted(common), args.n, args.seed, f"dialogues of --live {run}"))
        out += [t for ts in per_system.values() for t in ts if t.dialogue_id.partition("/")[2] in chosen]
    return out
