"""The checks :func:`trace_crs.cli.main` runs on the parsed flags before any command reads an
input (the contract in :mod:`trace_crs.cli`): every flag of every command is classified in
:data:`INPUT_FLAGS`, :data:`OUTPUT_FLAGS`, :data:`OTHER_FLAGS` or
:data:`trace_crs.cli.io_paths.RUN_NAME_FLAGS` (a test keeps it complete);
:func:`check_counts` bounds the count flags (:data:`COUNT_BOUNDS`); :func:`guard_paths` refuses
(exit 2) an output that is, contains or lies inside an input
(:func:`trace_crs.atomic.refuse_overlap`) or another output (:func:`refuse_output_clash`; the
run-name flags and the files written beside ``--out`` are declared in :mod:`trace_crs.cli.io_paths`),
a file output that is an existing directory and a directory output (:data:`DIR_OUTPUTS`) that is
a file."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from trace_crs.errors import UsageError

# argparse dests that name files or directories the command reads / writes
INPUT_FLAGS = (
    "kb",
    "kb_dir",
    "dialogues",
    "file",
    "file_flag",
    "predictions",
    "dialogue_ids",
    "config",
    "scores",
    "records",
    "results",
    "transcripts",
    "mixture",
    "run",
    "generic",
    "pred",
    "human",
    "human_map",
    "judge_b",
    "repeat",
    "unsolvable",
    "yelp_dir",
    "reference",
    "live",
    "select",
    "dataset",
    "pois",
    "splits",
    "labels",
    "key",
    "items",
    "labels_db",
    "arena",
    "face",
    "candidates",
)
OUTPUT_FLAGS = (
    "key_out",
    "db",
    "csv",
    "out",
    "json",
    "per_turn",
    "cache_dir",
    "models_dir",
    "markdown",
    "mixture_out",
    "yelp_bundle",
)
OTHER_FLAGS = (
    "rating",
    "source",
    "per_cell",
    "seed",
    "min_reviews",
    "n",
    "generator",
    "model",
    "api_base",
    "max_retries",
    "prompt",
    "decoding",
    "set",
    "show",
    "baselines",
    "pool",
    "subset",
    "chunk_size",
    "workers",
    "concurrency",
    "executor",
    "max_cost_usd",
    "estimate",
    "quiet",
    "score",
    "fuzzy_threshold",
    "cd_gate",
    "pc_window",
    "spatial_km",
    "entailment",
    "judge",
    "judge_n",
    "lm_model",
    "strict",
    "name",
    "level",
    "pair",
    "n_boot",
    "n_solvable",
    "quality",
    "cost",
    "budgets",
    "analysis",
    "runs",
    "n_dialogues",
    "settings",
    "max_turns",
    "opening_prefs",
    "simulator",
    "mode",
    "aggregator",
    "retries",
    "max_rounds",
    "system",
    "help",
    "version",
    "global_quiet",
    "global_json",
    "command",
    "lengths",
    "n_per_class",
    "n_unsolvable",
    "corpus_runs",
    "ask",
    "domain",
    "persuasiveness",
    "n_task2",
    "annotators",
    "step",
    "host",
    "port",
)
# bounds of the count flags, checked in one place before a command runs (a negative --n made
# 240 items; --per-cell 1000000 grew without bound): (lowest, highest or None)
COUNT_BOUNDS: dict[str, tuple[int, int | None]] = {
    "n": (1, 1_000_000),
    "per_cell": (1, 1_000),
    "n_boot": (1, 1_000_000),
    "subset": (1, None),
    "judge_n": (0, None),
    "chunk_size": (1, None),
    "workers": (1, 256),
    "concurrency": (0, 1_024),
    "budgets": (1, 10_000),
    "n_solvable": (1, None),
    "n_dialogues": (1, None),
    "max_turns": (1, 1_000),
    "retries": (0, 100),
    "max_rounds": (1, 100),
    "min_reviews": (1, None),
    "seed": (0, 2**32 - 1),
    "max_retries": (0, 100),
    "n_task2": (0, 10_000),
    "port": (1, 65_535),
}
# (command, subcommand) whose --out is a directory; every other output flag names a file
DIR_OUTPUTS = {
    ("kb", "build"),
    ("kb", "degrade"),
    ("evaluate", None),
    ("converse", None),
    ("stats", "abstention"),
    ("stats", "abstention-llm"),
    ("release", "import"),
    ("release", "export"),
    ("human", "agree"),
    ("judge", "validity"),
}


def command_of(args: argparse.Namespace) -> tuple[str, str | None]:
    """``(command, subcommand or None)`` of parsed ``args``."""
    return args.command, getattr(args, f"{args.command}_command", None)


def _paths(args: argparse.Namespace, flags: tuple[str, ...]) -> list[Any]:
    out: list[Any] = []
    for flag in flags:
        value = getattr(args, flag, None)
        if flag == "results" and value:  # a results root: its runs are the input (outputs live beside them)
            value = Path(value) / "runs"
        out += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, (str, Path)) and str(v)]
    return out


def check_counts(args: argparse.Namespace) -> None:
    """UsageError for a count flag outside :data:`COUNT_BOUNDS`."""
    for flag, (low, high) in COUNT_BOUNDS.items():
        value = getattr(args, flag, None)
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and (value < low or (high is not None and value > high))
        ):
            rule = f">= {low}" if high is None else f"in [{low}, {high}]"
            raise UsageError(f"--{flag.replace('_', '-')} {value}: must be {rule}")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _clash(a: Path, b: Path) -> str | None:
    """How output ``a`` collides with output ``b`` (same file, or one inside the other), or None."""
    ra, rb = (
        Path(os.path.abspath(os.path.expanduser(a))).resolve(),
        Path(os.path.abspath(os.path.expanduser(b))).resolve(),
    )
    try:
        same = ra == rb or (ra.exists() and rb.exists() and os.path.samefile(ra, rb))
    except OSError:
        same = False
    return (
        "is the same path as"
        if same
        else "lies inside"
        if rb in ra.parents
        else "contains"
        if ra in rb.parents
        else None
    )


def refuse_output_clash(outputs: list[tuple[str, Path]]) -> None:
    """UsageError when two outputs of one command are one path (one would be lost) or one lies
    inside the other (a directory output replaced as a whole would take the other with it)."""
    for i, (what_a, a) in enumerate(outputs):
        for what_b, b in outputs[i + 1 :]:
            how = _clash(a, b)
            if how:
                raise UsageError(
                    f"{what_a} {a} {how} {what_b} {b}: two outputs of one command would overwrite each other; "
                    "choose distinct paths"
                )


def warn_capped(flag: str, asked: int | None, available: int, what: str) -> bool:
    """Say on stderr (both numbers) that count flag ``flag`` asked for more than the input holds
    and all ``available`` are used: the seeded subsets of the paper's procedure
    (:func:`trace_crs.dialogues.subset.seeded_indices`) cap at the corpus, never silently.
    Returns whether it warned."""
    import sys

    if asked is None or asked <= available:
        return False
    print(
        f"trace-crs: warning: {flag} {asked} is above the {available} {what}; all {available} are used", file=sys.stderr
    )
    return True


def guard_paths(args: argparse.Namespace) -> None:
    """Refuse outputs that overlap inputs or each other, and file outputs that are directories
    (exit 2).  Inputs: :data:`INPUT_FLAGS` and the runs of
    :data:`~trace_crs.cli.io_paths.RUN_NAME_FLAGS`; outputs: :data:`OUTPUT_FLAGS` and
    :func:`~trace_crs.cli.io_paths.derived_outputs`."""
    from trace_crs.atomic import refuse_overlap
    from trace_crs.cli.io_paths import derived_outputs, named_inputs

    inputs = _paths(args, INPUT_FLAGS) + named_inputs(args)
    outputs: list[tuple[str, Path]] = []
    for flag in OUTPUT_FLAGS:
        for out in _paths(args, (flag,)):
            refuse_overlap([out], inputs, flag=_flag(flag))
            is_dir_output = flag in ("cache_dir", "models_dir", "yelp_bundle") or (
                flag == "out" and command_of(args) in DIR_OUTPUTS
            )
            if not is_dir_output and Path(out).is_dir():
                raise UsageError(f"{_flag(flag)} {out} is a directory; it names a file")
            if is_dir_output and Path(out).exists() and not Path(out).is_dir():
                raise UsageError(f"{_flag(flag)} {out} is a file; it names a directory")
            outputs.append((_flag(flag), Path(out)))
    derived = derived_outputs(args)
    for what, path in derived:
        refuse_overlap([path], inputs, flag=what)
    refuse_output_clash(outputs + derived)
