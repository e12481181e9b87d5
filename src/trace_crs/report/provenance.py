"""Provenance of a profile's results: which data, models, backends and code made them.

:func:`runs` — per run: baselines, sizes, signature fields (pool, fuzzy, nli backend,
seed), the LM model id and weights SHA256 read from the run's ``config.yaml`` and
``records.parquet``.  :func:`timings` — wall seconds of every run, score and notebook step
(``results/<profile>/timings/*.json``, written by ``book/tools/pipeline.py timed``; each file
holds the last invocation of its step, so a resumed run shows only its final part).
:func:`load` — the provenance page: KB and corpus SHA256, package versions, git commit,
per-run rows.  Nothing here is typed by hand; absent sources say so.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from trace_crs import results_layout as layout
from trace_crs.kb.store import MANIFEST_FILE, POIS_FILE, REVIEWS_FILE, sha256_file
from trace_crs.lm.weights import WEIGHTS
from trace_crs.report import present, results

PACKAGES = (
    "trace-crs",
    "numpy",
    "pandas",
    "scikit-learn",
    "scipy",
    "sentence-transformers",
    "rapidfuzz",
    "sacrebleu",
    "dspy",
    "litellm",
    "matplotlib",
    "papermill",
    "jupyter-book",
)
ABSENT = "not recorded"


def signature_fields(signature: str) -> dict[str, str]:
    """``trace|v:0.1.0|kb:1a2b|pool:8|…`` -> ``{"v": "0.1.0", "kb": "1a2b", "pool": "8", …}``."""
    parts = [p.split(":", 1) for p in (signature or "").split("|")[1:]]
    return {k: v for k, v in (p for p in parts if len(p) == 2)}


def _lm(results_dir: str | Path, run: str) -> dict[str, str]:
    """LM model id(s), weights hash and summed latency of a run, from its config and records."""
    config: dict[str, Any] = {}
    if layout.run_file(results_dir, run, layout.RUN_CONFIG).exists():
        config = results.load_run_config(results_dir, run).get("lm") or {}
    models, latency = ABSENT, ABSENT
    if (path := layout.run_file(results_dir, run, layout.RECORDS)).exists():
        records = pd.read_parquet(path, columns=["model", "latency_s"])
        models = ", ".join(sorted(str(m) for m in records["model"].dropna().unique())) or "none (no LM)"
        latency = f"{float(records['latency_s'].sum()):.1f}"
    weights = config.get("weights")
    uses_local = config.get("model") == "local"
    sha = WEIGHTS[weights].sha256 if uses_local and weights in WEIGHTS else ("n/a (API model)" if config else ABSENT)
    return {
        "lm_model": str(config.get("model", ABSENT)),
        "models_in_records": models,
        "weights": str(weights) if uses_local else "n/a",
        "weights_sha256": sha,
        "summed_latency_s": latency,
    }


def runs(results_dir: str | Path, names: Sequence[str]) -> pd.DataFrame:
    """One row per run: baselines, dialogue/turn counts, signature fields and LM identity."""
    rows = []
    for run in names:
        agg = results.load_aggregates(results_dir, run)
        sig = signature_fields(str(agg["signature"].iloc[0]))
        rows.append(
            {
                "run": run,
                "baselines": ", ".join(agg["baseline"]),
                "n_dialogues": int(agg["n_dialogues"].max()),
                "n_turns": int(agg["n_turns"].max()),
                "kb": sig.get("kb", ABSENT),
                "pool": sig.get("pool", ABSENT),
                "fuzzy": sig.get("fuzzy", ABSENT),
                "nli": sig.get("nli", ABSENT),
                "seed": sig.get("seed", ABSENT),
                **_lm(results_dir, run),
            }
        )
    return pd.DataFrame(rows)


SECTION_CAPTION = (
    "Runs, dialogue and turn counts, signature fields (KB hash, pool, fuzzy threshold, "
    "entailment backend, seed) and the LM model id with its weights SHA256, read from each "
    "run's score files, config.yaml and records.parquet."
)


def section(results_dir: str | Path, names: Sequence[str]) -> present.Folded:
    """The provenance block every table page ends with: :func:`runs` captioned with where its
    fields come from (one definition instead of a paragraph pasted into each notebook), shown
    collapsed; fields equal in every run are lifted into the caption."""
    return present.folded(present.table(runs(results_dir, names), SECTION_CAPTION))


INPUTS_CAPTION = "SHA256 of the KB files (checked against the KB manifest) and of the dialogue corpus."


def inputs_section(kb_dir: str | Path, dialogues_path: str | Path) -> present.Folded:
    """The provenance block of a page computed from the inputs themselves (Table 3): :func:`inputs`
    as a captioned ``file, sha256`` table, shown collapsed."""
    frame = pd.DataFrame(list(inputs(kb_dir, dialogues_path).items()), columns=["file", "sha256"])
    return present.folded(present.table(frame, INPUTS_CAPTION, lift=False))


def timings(results_dir: str | Path) -> pd.DataFrame:
    """One row per recorded step, sorted by step: ``step, seconds`` (its last, finishing attempt),
    ``earlier_s`` and ``attempts`` (the killed or failed attempts before it, carried by
    ``book/tools/pipeline.py timed``), ``finished, returncode, build`` (None in records made before
    builds were named), ``earlier_attempts`` and ``lm_calls`` (``{"replayed", "computed"}``: the
    step's LLM look-ups in the records, None for a step that made none or a record made before
    steps counted them) and ``cpu_seconds`` (the finishing attempt's CPU time, None in records made
    before steps counted it)."""
    rows = []
    for f in sorted(layout.timings_dir(results_dir).glob("*.json")):
        rec = json.loads(f.read_text())
        earlier = rec.get("earlier_attempts") or []
        rows.append(
            {
                **rec,
                "build": rec.get("build"),
                "earlier_attempts": earlier,
                "attempts": len(earlier) + 1,
                "earlier_s": float(sum(a.get("seconds") or 0 for a in earlier)),
                "lm_calls": rec.get("lm_calls"),
                "cpu_seconds": rec.get("cpu_seconds"),
            }
        )
    columns = [
        "step",
        "seconds",
        "earlier_s",
        "attempts",
        "finished",
        "returncode",
        "build",
        "earlier_attempts",
        "lm_calls",
        "cpu_seconds",
    ]
    return pd.DataFrame(rows, columns=columns).sort_values("step", ignore_index=True)


def git_commit(repo: str | Path = ".") -> str:
    """``git rev-parse HEAD`` of ``repo`` (plus ``-dirty`` if tracked files changed)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "-uno"], check=True, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ABSENT
    return head + ("-dirty" if dirty else "")


def versions(packages: Sequence[str] = PACKAGES) -> dict[str, str]:
    """Installed version of each distribution (``not installed`` when absent)."""
    out = {}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def inputs(kb_dir: str | Path, dialogues_path: str | Path) -> dict[str, str]:
    """SHA256 of the KB files (from the KB manifest, checked against the bytes) and corpus."""
    kb_dir = results.require(kb_dir, "KB directory")
    manifest = json.loads(results.require(Path(kb_dir) / MANIFEST_FILE, "KB manifest").read_text())
    out = {}
    for name in (POIS_FILE, REVIEWS_FILE):
        actual = sha256_file(Path(kb_dir) / name)
        recorded = manifest.get("files", {}).get(name, {}).get("sha256", "")
        out[f"kb/{name}"] = actual if actual == recorded else f"{actual} (manifest says {recorded})"
    out["dialogues"] = sha256_file(results.require(dialogues_path, "dialogue corpus"))
    return out


def load(
    results_dir: str | Path,
    kb_dir: str | Path,
    dialogues_path: str | Path,
    run_names: Sequence[str],
    repo: str | Path = ".",
) -> pd.DataFrame:
    """Key/value provenance table (``section, key, value``) for the provenance page."""
    done = Path(results_dir) / ".done"
    rows: list[tuple[str, str, Any]] = [("inputs", k, v) for k, v in inputs(kb_dir, dialogues_path).items()]
    rows += [("code", "git commit", git_commit(repo))]
    rows += [("packages", k, v) for k, v in versions().items()]
    rows += [
        (
            "results",
            "all runs scored (.done)",
            pd.Timestamp(done.stat().st_mtime, unit="s").isoformat() if done.exists() else ABSENT,
        )
    ]
    for record in runs(results_dir, run_names).to_dict("records"):
        rows += [(f"run {record['run']}", k, v) for k, v in record.items() if k != "run"]
    return pd.DataFrame(rows, columns=["section", "key", "value"]).astype(str)
