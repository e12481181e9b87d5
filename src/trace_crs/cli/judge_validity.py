"""``trace-crs judge validity``: the CoRE judge's candidates against human ratings (issue 44).

``judge validity --candidates C.yaml --arena A.json [--face F.json] --out DIR [--judge all|chosen|none]``

1. the development set's conversations (:mod:`trace_crs.judge.crsarena`; a seeded subset when the
   config's ``n`` is set) → ``DIR/transcripts.jsonl``;
2. each candidate (``--judge all``: ``make judge-select``) or only the config's ``chosen`` one
   (``make judge-validity``) judged by ``trace-crs judge core <its arguments>`` →
   ``DIR/judged_<name>.jsonl`` (resumable: judge core's ``.partial`` file and the LM cache);
3. ``DIR/validity.json`` (every judged candidate, the floors and FACE per human aspect and half,
   the choice and how it was made), ``DIR/scores.parquet`` (one row per conversation: half, human
   aspects, every score) and ``DIR/chosen.jsonl`` (the chosen configuration's records, the ``judge
   core`` layout, ``dialogue_id`` = the data set's ``conv_id``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from trace_crs.atomic import refuse_overlap
from trace_crs.cli.arguments import add_out, add_quiet
from trace_crs.errors import DataError

CONFIG_KEYS = {"seed", "n", "n_boot", "aspect", "score_field", "chosen", "candidates"}


def load_config(path: str) -> dict[str, Any]:
    """The candidates file; an unknown key, a candidate that is not a list of strings or a
    ``chosen`` that is not a candidate is a :class:`DataError` naming the field."""
    cfg = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(cfg, dict) or not set(cfg) <= CONFIG_KEYS or "candidates" not in cfg:
        raise DataError(f"expected a mapping with keys among {sorted(CONFIG_KEYS)}", file=path, field="<root>")
    cands = cfg["candidates"]
    if not isinstance(cands, dict) or not cands:
        raise DataError("expected a non-empty mapping name -> [judge core arguments]", file=path, field="candidates")
    for name, argv in cands.items():
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise DataError("expected a list of strings", file=path, field=f"candidates.{name}")
    if cfg.get("chosen") not in cands:
        raise DataError(f"{cfg.get('chosen')!r} is not a candidate", file=path, field="chosen")
    return {"seed": 42, "n": None, "n_boot": 2000, "aspect": "dialogue_overall", "score_field": "core_avg", **cfg}


def run_validity(args: argparse.Namespace) -> int:
    from trace_crs.cli import main as cli_main
    from trace_crs.cli.judge_transcripts import dump_records, seeded_subset
    from trace_crs.judge import crsarena
    from trace_crs.judge.transcript import transcript_record
    from trace_crs.judge.validity_report import report

    cfg = load_config(args.candidates)
    out = Path(args.out)
    refuse_overlap([out], [args.candidates, args.arena, args.face])
    out.mkdir(parents=True, exist_ok=True)
    convs = seeded_subset(crsarena.load(args.arena), cfg["n"], cfg["seed"])
    transcripts = [crsarena.to_transcript(c) for c in convs]
    tpath = out / "transcripts.jsonl"
    dump_records([transcript_record(t) for t in transcripts], tpath)
    names = {"all": list(cfg["candidates"]), "chosen": [cfg["chosen"]], "none": []}[args.judge]
    for name in names:
        argv = ["judge", "core", "--transcripts", str(tpath), "--out", str(out / f"judged_{name}.jsonl")]
        if args.quiet:
            argv.append("--quiet")
        code = cli_main([*argv, *cfg["candidates"][name]])
        if code:
            return code
    result = report(cfg, convs, transcripts, out, args.face, args.candidates)
    if not args.quiet:
        for row in result["summary"]:
            print(row)
    print(out / "validity.json")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("validity", help="the judge's candidates against human ratings (CRSArena-Eval layout)")
    p.add_argument("--candidates", required=True, help="candidates YAML (configs/judge_validity_<profile>.yaml)")
    p.add_argument("--arena", required=True, help="human-labelled conversations, CRSArena-Eval's JSON layout")
    p.add_argument("--face", help="FACE's run file for the same conversations (a reference evaluator)")
    add_out(p, "output directory (results/<profile>/judge_validity)", required=True)
    p.add_argument(
        "--judge",
        choices=("all", "chosen", "none"),
        default="chosen",
        help="judge every candidate (judge-select), the config's chosen one (default), or none (report only)",
    )
    add_quiet(p, "no progress or summary on stderr")
    p.set_defaults(func=run_validity)
