"""``trace-crs judge agree``: meta-evaluation of judged transcripts (:mod:`trace_crs.judge.agree`)
against human labels, a second judge or reruns of the same judge, and the per-factor judge
selection of a mixture (CoRE §7.2)."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from trace_crs.atomic import commit_files
from trace_crs.cli.score import refuse_inputs
from trace_crs.errors import DataError, UsageError


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


def read_human(args: argparse.Namespace) -> tuple[Any, dict[str, str] | None, dict[str, Any] | None]:
    """``--human`` as a ratings frame; with ``--human-map`` read through the mapping
    (:mod:`trace_crs.judge.label_map`), which also gives the factors without a defined QWK and a
    report of what was mapped and ignored (``None``, ``None`` without a map)."""
    from trace_crs.judge.records import read_ratings

    if not args.human_map:
        return read_ratings(args.human, human=True), None, None
    from trace_crs.judge.label_map import load_map, qwk_reasons, read_mapped

    mapping = load_map(args.human_map)
    human, report = read_mapped(args.human, mapping)
    return human, qwk_reasons(mapping), {"file": str(args.human_map), **report}


def _select(args: argparse.Namespace, pred: Any) -> tuple[Any, str | None]:
    """``--select``: per factor, the candidate (``--pred`` and each ``--select`` file) with the
    highest QWK against ``--human``; and the mixture table's text when ``--mixture-out`` asks
    for it (written with ``--out``, in one commit)."""
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

    human, reasons, _ = read_human(args)
    if agree.several_annotators(human):  # judges are chosen against the mean label
        human = agree.mean_over_annotators(human)
    sets = [set(f["dialogue_id"]) for f in frames.values()]
    if any(s != sets[0] for s in sets):
        print(
            f"warning: the --select candidates judged different transcripts; each is scored on the "
            f"{len(set.intersection(*sets))} all of them judged",
            file=sys.stderr,
        )
    selection = select_judges(frames, human, reasons)
    mixture = (
        yaml.safe_dump(mixture_table(selection, models, args.human), sort_keys=False) if args.mixture_out else None
    )
    return selection, mixture


def _coverage(pred: Any, human: Any, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`~trace_crs.judge.records.coverage` of ``--pred`` and ``--human``; no dialogue in
    common is an error (every table would be empty), a partial overlap a warning on stderr."""
    from trace_crs.judge.records import coverage

    cov = coverage(pred, human)
    if not cov["n_both"]:
        raise DataError(
            f"no labelled dialogue is among the {cov['n_judged']} judged ones (labelled e.g. "
            f"{cov['labelled_not_judged'][:2]}, judged e.g. {cov['judged_not_labelled'][:2]}; transcripts of "
            "'judge transcripts --run/--live' are named '<system>/<dialogue_id>')",
            file=str(args.human),
            field="dialogue_id",
        )
    if cov["labelled_not_judged"] or cov["judged_not_labelled"]:
        print(
            f"warning: agreement on the {cov['n_both']} dialogues both judged and labelled; "
            f"{cov['n_labelled'] - cov['n_both']} labelled only, {cov['n_judged'] - cov['n_both']} judged only "
            "(see 'coverage')",
            file=sys.stderr,
        )
    return cov


def _warn_undefined(tables: dict[str, Any], pred: Any, human: Any) -> None:
    """Say on stderr why agreement tables came out all null: no numeric human rating, ``--pred``
    and ``--human`` naming no system in common, or an agreement table whose every measure is
    undefined (the tables are written as computed; the warning keeps a null table from passing
    unseen)."""
    import pandas as pd

    if human is not None:
        rated = [c for c in human.columns if c not in ("dialogue_id", "system", "annotator")]
        if not human[rated].apply(pd.to_numeric, errors="coerce").notna().any().any():
            print("warning: --human holds no numeric rating (every factor and overall is null)", file=sys.stderr)
        ours, theirs = set(pred["system"].dropna()), set(human["system"].dropna())
        if ours and theirs and not ours & theirs:
            print(
                f"warning: --pred and --human share no system (e.g. {sorted(ours)[:2]} vs {sorted(theirs)[:2]}): "
                "the ranking agreement is undefined",
                file=sys.stderr,
            )
    for name in ("factors", "overall", "factors_vs_judge_b"):  # the agreement itself (a ranking of
        table = tables.get(name)  # files without systems is undefined by design)
        if isinstance(table, pd.DataFrame) and len(table):
            measures = table.select_dtypes("float")
            if measures.shape[1] and measures.isna().all().all():
                print(f"warning: table {name!r}: every value is undefined (null)", file=sys.stderr)


def run_agree(args: argparse.Namespace) -> int:
    """``judge agree``."""
    from trace_crs.judge import agree
    from trace_crs.judge.records import read_ratings

    out = Path(args.out) if args.out else None
    if args.human_map and not args.human:
        raise UsageError("--human-map needs --human (the labels it maps)")
    if out:
        inputs = [args.pred, args.human, args.human_map, args.judge_b, *(args.repeat or []), *(args.select or [])]
        refuse_inputs([out], inputs)
    if args.mixture_out:
        refuse_inputs([Path(args.mixture_out)], [args.pred, args.human, args.human_map, *(args.select or [])])
        if not args.select:
            raise UsageError("--mixture-out needs --select (the candidate judges)")
    pred = read_ratings(args.pred)
    tables: dict[str, Any] = {
        "coupling_judge": agree.coupling(pred),
        "coupling_matrix_judge": agree.coupling_matrix(pred),
        "cost": agree.cost(pred),
    }
    if args.human:
        human, reasons, mapped = read_human(args)
        if mapped is not None:
            tables["human_map"] = mapped
        factor_table = (
            partial(agree.factor_agreement, qwk_reasons=reasons) if reasons is not None else agree.factor_agreement
        )
        tables["coverage"] = _coverage(pred, human, args)
        unnamed = bool(mapped and mapped["unnamed_annotators"])  # "#k" is no one person: no per-annotator table
        if agree.several_annotators(human) and not unnamed:  # per annotator first, then against the mean label
            tables |= {
                "factors_per_annotator": agree.per_annotator(pred, human, factor_table),
                "overall_per_annotator": agree.per_annotator(pred, human, agree.overall_agreement),
            }
        if agree.several_annotators(human):
            human = agree.mean_over_annotators(human)
        tables |= {
            "factors": factor_table(pred, human),
            "overall": agree.overall_agreement(pred, human),
            "coupling_human": agree.coupling(human),
            "coupling_matrix_human": agree.coupling_matrix(human),
        }
        if pred["system"].notna().any() and human["system"].notna().any():
            tables["ranking_vs_human"] = agree.ranking_agreement(pred, human)
    if args.judge_b:
        other = read_ratings(args.judge_b)
        only = set(pred["dialogue_id"]) ^ set(other["dialogue_id"])
        if only:  # stderr only: the tables (and the build's agreement files) stay as they were
            print(
                f"warning: --pred and --judge-b differ in {len(only)} transcript(s) (e.g. {sorted(only)[:2]}); "
                "factor agreement uses those both rated, the ranking each file's own",
                file=sys.stderr,
            )
        tables |= {
            "factors_vs_judge_b": agree.factor_agreement(pred, other),
            "ranking_vs_judge_b": agree.ranking_agreement(pred, other),
        }
    if args.repeat:
        tables["stability"] = agree.stability([pred, *(read_ratings(r) for r in args.repeat)])
    mixture = None
    if args.select:
        tables["selection"], mixture = _select(args, pred)
    _warn_undefined(tables, pred, human if args.human else None)
    as_json = {k: _plain(v) for k, v in tables.items()}
    if not args.quiet:
        for k, v in tables.items():
            print(f"== {k}\n{v.round(3).to_string(index=False) if hasattr(v, 'round') else v}", file=sys.stderr)
    text = json.dumps(as_json, indent=1, sort_keys=True, allow_nan=False) + "\n"
    writers: dict[str | Path, Any] = {}  # --out and --mixture-out: one commit (atomic.commit_files)
    if mixture is not None:
        writers[Path(args.mixture_out)] = lambda tmp: tmp.write_text(mixture)
    if out:
        writers[out] = lambda tmp: tmp.write_text(text)
    if writers:
        commit_files(writers, marker=out or Path(args.mixture_out))
    if out:
        print(out)
    else:
        print(text, end="")
    return 0
