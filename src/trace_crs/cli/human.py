"""`trace-crs human` commands: the paper's annotation study (seed 000 App. K).

* ``trace-crs human agree --labels LABELS.jsonl [--key KEY.jsonl] [--n-boot N] [--seed N]
  [--source study|simulated] --out DIR`` — Tables 10–15 twins from collected labels (:mod:`trace_crs.human.study`):
  ``DIR/<table>.parquet`` and ``DIR/summary.json`` (written last: the tables it lists, the labels'
  and key's paths and sha256, the source).
* ``trace-crs human sample --run RUN_DIR [--run …] --kb KB --dialogues D [--scores DIR …]
  [--baselines tfidf,rag_citation,llm_zero_shot] [--n 30] [--n-task2 20 (≤ --n)] [--seed N]
  --out ITEMS.jsonl --key-out KEY.jsonl`` — blind Task 1 / Task 2 items
  (:mod:`trace_crs.human.sample`); the key file (item → baseline, automated scores) is a
  separate output, kept away from annotators (each key line carries the items file's SHA-256,
  which ``human export`` copies into every label, so ``human agree`` refuses a key of another
  sample); the items file is written last.
* ``trace-crs human serve --items ITEMS.jsonl --db LABELS.sqlite --annotators A1,A2,…
  [--host 127.0.0.1] [--port 8765]`` — the annotation web tool (:mod:`trace_crs.human.app`);
  prints each annotator's private link (tokens persist in the database).  The database records
  the items file's SHA-256 when it is created; another items file is refused (exit 3,
  :func:`trace_crs.human.store.open_store`), and so is a port that cannot be bound (exit 2).
* ``trace-crs human export --items ITEMS.jsonl --labels-db LABELS.sqlite --out LABELS.jsonl
  [--csv LABELS.csv]`` — complete labels as ``human agree`` reads them; incomplete ones are
  listed on stderr (never silently dropped) and counted in the exit summary.  The database is
  opened read-only and must be one ``human serve`` created for this items file (exit 3
  otherwise).  CSV cells a spreadsheet would run as formulas (``=``, ``+``, ``-``, ``@``, tab,
  return) start with ``'`` (:func:`trace_crs.human.labels.csv_cell`; ``human agree`` strips it).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs.atomic import commit_files
from trace_crs.cli import add_group
from trace_crs.cli.arguments import (
    add_baselines,
    add_dialogues,
    add_kb,
    add_n,
    add_n_boot,
    add_out,
    add_quiet,
    add_seed,
)
from trace_crs.errors import UsageError
from trace_crs.human.sample import N_TASK2, sample_items, task2_count
from trace_crs.human.study import analyse
from trace_crs.kb.store import sha256_file

DEFAULT_BASELINES = "tfidf,rag_citation,llm_zero_shot"  # the three audited in App. K
RECORD_COLUMNS = ("dialogue_id", "turn_id", "baseline", "text", "citations")  # what the sampler reads of a run


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)


def _sample(args: argparse.Namespace) -> int:
    from trace_crs.cli.run_inputs import check_run_inputs
    from trace_crs.cli.tables import read_table
    from trace_crs.dialogues.schema import load_dialogues
    from trace_crs.kb.store import load_kb

    n_task2 = task2_count(args.n, args.n_task2)  # before reading anything
    for run in args.run:  # the runs' replies belong to these dialogues of this KB
        check_run_inputs(run, {"dialogues": args.dialogues, "kb/pois.jsonl": args.kb})
    frames = [read_table(Path(r) / "records.parquet", RECORD_COLUMNS) for r in args.run]
    records = pd.concat(frames, ignore_index=True)
    if records.duplicated(["dialogue_id", "turn_id", "baseline"]).any():
        raise UsageError("--run: the runs share a (dialogue, turn, baseline); give each baseline from one run")
    scores = None
    if args.scores:
        parts = [
            read_table(p).assign(baseline=p.name.split(".")[0])
            for d in args.scores
            for p in sorted(Path(d).glob("*.per_turn.parquet"))
        ]
        scores = pd.concat(parts, ignore_index=True) if parts else None
    dialogues = {d["dialogue_id"]: d for d in load_dialogues(args.dialogues)}
    t1, t2, key = sample_items(
        records, dialogues, load_kb(args.kb), args.baselines.split(","), args.n, args.seed, n_task2, scores
    )
    text_items = _jsonl(t1 + t2)
    digest = hashlib.sha256(text_items.encode("utf-8")).hexdigest()  # what serve records, export copies
    text_key = _jsonl([{**k, "items_sha256": digest} for k in key])
    commit_files(
        {
            args.key_out: lambda t: t.write_text(text_key, encoding="utf-8"),
            args.out: lambda t: t.write_text(text_items, encoding="utf-8"),
        },
        args.out,
    )
    if not args.quiet:
        print(f"{len(t1)} Task 1 items, {len(t2)} Task 2 items -> {args.out}; key -> {args.key_out}")
    return 0


def _agree(args: argparse.Namespace) -> int:
    frames = analyse(args.labels, args.key, args.n_boot, args.seed)
    out: Path = args.out
    summary = {
        "labels": str(args.labels),
        "labels_sha256": sha256_file(args.labels),  # which labels, not only where (a stale page is visible)
        "key": str(args.key) if args.key else None,
        "key_sha256": sha256_file(args.key) if args.key else None,
        "n_boot": args.n_boot,
        "seed": args.seed,
        "source": args.source,
        "tables": sorted(frames),
        # per column, so counts stay integers (a row Series would make them floats)
        **{
            k: (None if v != v else v.item() if hasattr(v, "item") else v)
            for k, v in frames["alphas"].to_dict("records")[0].items()
        },
    }

    def parquet(frame: pd.DataFrame) -> Callable[[Path], Any]:
        return lambda t: frame.to_parquet(t, index=False)

    writers: dict[str | Path, Callable[[Path], Any]] = {out / f"{n}.parquet": parquet(f) for n, f in frames.items()}
    writers[out / "summary.json"] = lambda t: t.write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n")
    commit_files(writers, out / "summary.json")
    if not args.quiet:
        print(frames["table10"].to_string(index=False))
        print(frames["alphas"].to_string(index=False))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from trace_crs.human.app import create_app
    from trace_crs.human.store import open_store

    names = [a for a in args.annotators.split(",") if a]
    if not names:  # a server nobody can reach
        raise UsageError(f"--annotators {args.annotators!r}: give at least one name (A1,A2,...)")
    bind_check(args.host, args.port)  # a busy port is a usage error, before the database is touched
    store = open_store(args.db, args.items, create=True)
    if store.items_sha256 is None:
        print(
            f"warning: {args.db} records no items file (created before databases did): "
            f"cannot check that {args.items} is the one it served",
            file=sys.stderr,
        )
    tokens = store.add_annotators(names)
    for name, token in tokens.items():
        print(f"{name}: http://{args.host}:{args.port}/a/{token}", flush=True)
    try:
        uvicorn.run(create_app(store), host=args.host, port=args.port, log_level="warning")
    except SystemExit as exc:  # uvicorn's startup failure (3) is not bad data: the port was taken meanwhile
        if exc.code == 3:
            raise UsageError(f"--host {args.host} --port {args.port}: the server could not start (above)") from None
        raise
    return 0


def bind_check(host: str, port: int) -> None:
    """UsageError (exit 2) when ``host:port`` cannot be bound (in use, or not an address here)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"--host {host}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as exc:
            raise UsageError(
                f"--host {host} --port {port}: cannot listen there ({exc.strerror}); choose another port"
            ) from None


def _csv_rows(records: list[dict]) -> pd.DataFrame:
    from trace_crs.human.labels import csv_cell

    flat = [{k: csv_cell(";".join(v) if isinstance(v, list) else v) for k, v in r.items()} for r in records]
    cols = [
        "task",
        "annotator",
        "item_id",
        "dialogue_id",
        "quotes",
        "errors",
        "informativeness",
        "naturalness",
        "comment",
        "pois",
        "sentence",
    ]
    return pd.DataFrame(flat).reindex(columns=cols)


def _export(args: argparse.Namespace) -> int:
    from trace_crs.human.store import open_store

    if not Path(args.labels_db).is_file():
        raise FileNotFoundError(f"{args.labels_db}: no such database")
    store = open_store(args.labels_db, args.items, create=False)
    if store.items_sha256 is None:
        print(
            f"warning: {args.labels_db} records no items file (created before databases did): "
            f"cannot check that {args.items} is the one it served",
            file=sys.stderr,
        )
    done, missing = store.export()
    writers = {args.out: lambda t: t.write_text(_jsonl(done), encoding="utf-8")}
    if args.csv:
        # every cell quoted: a bare carriage return in a comment would otherwise end the row
        writers = {args.csv: lambda t: _csv_rows(done).to_csv(t, index=False, quoting=csv.QUOTE_ALL), **writers}
    commit_files(writers, args.out)
    for m in missing:
        print(f"incomplete: {m['annotator']} {m['item_id']} lacks {', '.join(m['missing'])}", file=sys.stderr)
    print(f"{len(done)} complete label(s) -> {args.out}; {len(missing)} incomplete (listed above)", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add ``human agree``, ``human sample``, ``human serve`` and ``human export``."""
    sub = add_group(subparsers, "human", "human evaluation kit (App. K): agreement and validation tables")
    agree = sub.add_parser("agree", help="Krippendorff alpha, leave-out, Tables 10-15 twins from a labels file")
    agree.add_argument(
        "--labels",
        type=Path,
        required=True,
        help="labels JSON lines (Task 1 and Task 2), or a .csv in the layout of human export --csv",
    )
    agree.add_argument("--key", type=Path, help="the sampler's key file (item -> baseline, metric scores)")
    add_n_boot(agree, "bootstrap resamples of the metric-human correlation intervals")
    add_seed(agree, "seed of the bootstrap resamples")
    agree.add_argument(
        "--source",
        choices=("study", "simulated"),
        default="study",
        help="where the labels come from; 'simulated' (a test fixture) is said on every page that shows them",
    )
    add_quiet(agree, "no tables on stdout")
    add_out(agree, "output directory", required=True, path=True)
    agree.set_defaults(func=_agree)
    smp = sub.add_parser("sample", help="blind annotation items (Task 1, Task 2) and their key from runs")
    smp.add_argument("--run", action="append", required=True, help="a run directory (repeatable)")
    add_kb(smp, "the runs' KB directory", required=True)
    add_dialogues(smp, "the runs' dialogues (JSON lines)", required=True)
    smp.add_argument("--scores", action="append", help="score directories (per_turn parquet) for the key")
    add_baselines(smp, f"comma-separated (default {DEFAULT_BASELINES})", default=DEFAULT_BASELINES)
    add_n(smp, "dialogues (default 30)", default=30)
    smp.add_argument(
        "--n-task2",
        type=int,
        help=f"Task 2 dialogues, the first of the sample (default {N_TASK2}, or --n when smaller; more than --n is an error)",
    )
    add_seed(smp, "seed of the sampled dialogues and item order")
    add_quiet(smp, "no summary on stdout")
    add_out(smp, "items JSON lines (what annotators see)", required=True, path=True)
    smp.add_argument("--key-out", type=Path, required=True, help="the key JSON lines (never shown to annotators)")
    smp.set_defaults(func=_sample)
    srv = sub.add_parser("serve", help="the annotation web tool (FastAPI + SQLite)")
    srv.add_argument("--items", type=Path, required=True, help="items of human sample")
    srv.add_argument("--db", type=Path, required=True, help="SQLite label database (created if absent)")
    srv.add_argument("--annotators", required=True, help="comma-separated annotator names (A1,A2,...)")
    srv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    srv.add_argument("--port", type=int, default=8765)
    srv.set_defaults(func=_serve)
    exp = sub.add_parser("export", help="labels of the web tool as JSON lines (and CSV)")
    exp.add_argument("--items", type=Path, required=True, help="the items the tool served")
    exp.add_argument("--labels-db", type=Path, required=True, help="the tool's SQLite database")
    add_out(exp, "labels JSON lines (human agree --labels)", required=True, path=True)
    exp.add_argument("--csv", type=Path, help="the same labels as CSV (lists joined by ';')")
    exp.set_defaults(func=_export)
