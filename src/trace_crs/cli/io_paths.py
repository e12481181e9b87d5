"""Paths a command reads or writes that are not its own path flags (the declarations the guard,
:func:`trace_crs.cli.guard.guard_paths`, adds to :data:`~trace_crs.cli.guard.INPUT_FLAGS` and
:data:`~trace_crs.cli.guard.OUTPUT_FLAGS`): the runs that name flags select, with the KB and
dialogues their configs name, and the files a command writes beside its ``--out``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trace_crs.cli.guard import command_of

# flags that name runs under ``<--results>/runs/`` (a name joined to that directory, so a path
# given instead is read as that path): each named run, and the KB and dialogues its config.yaml
# names, are inputs of the guard (:func:`named_inputs`).  How each flag lists its runs:
RUN_NAME_FLAGS: dict[str, str] = {
    "run_name": "one",  # stats diagnose --run NAME
    "runs": "comma",  # stats sensitivity --runs A,B
    "corpus_runs": "variant",  # stats diagnose --corpus-runs VARIANT=RUN,...
}


def _run_names(flag: str, value: Any) -> list[str]:
    if not isinstance(value, str) or not value:
        return []
    how = RUN_NAME_FLAGS[flag]
    if how == "one":
        return [value]
    parts = [p.strip() for p in value.split(",") if p.strip()]
    return [p.partition("=")[2].strip() or p for p in parts] if how == "variant" else parts


def named_runs(args: argparse.Namespace) -> list[str]:
    """Every run the run-name flags of ``args`` name (:data:`RUN_NAME_FLAGS`), in flag order."""
    return [name for flag in RUN_NAME_FLAGS for name in _run_names(flag, getattr(args, flag, None))]


def check_run_configs(args: argparse.Namespace) -> None:
    """DataError (exit 3, naming the file and field) for a named run whose ``config.yaml`` is not
    YAML, not a mapping, lacks the ``kb`` and ``dialogues`` paths the re-scoring reads, or names
    files other than the run evaluated (:func:`~trace_crs.cli.run_inputs.check_run_inputs`); a
    missing config is left to the command (it says how to produce the run)."""
    import yaml

    from trace_crs import results_layout as layout
    from trace_crs.cli.run_inputs import check_run_inputs
    from trace_crs.errors import DataError

    for name in named_runs(args):
        path = layout.run_file(args.results, name, layout.RUN_CONFIG)
        if not path.is_file():
            continue
        try:
            config = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise DataError(f"not YAML ({problem})", file=str(path), line=mark.line + 1 if mark else None) from None
        if not isinstance(config, dict):
            raise DataError(f"expected a mapping (kb:, dialogues:, ...), got {type(config).__name__}", file=str(path))
        for key in ("kb", "dialogues"):
            if not isinstance(config.get(key), str) or not config[key]:
                raise DataError("missing, or not a path", file=str(path), field=key)
        # the KB and dialogues it names are still the ones the run evaluated (its MANIFEST's SHA-256s)
        given = {"dialogues": config["dialogues"], "kb/pois.jsonl": config["kb"]}
        check_run_inputs(path.parent, given, named_by=str(path))


def named_inputs(args: argparse.Namespace) -> list[Path]:
    """The inputs behind the run-name flags (:data:`RUN_NAME_FLAGS`): each run's directory and
    the KB and dialogues its ``config.yaml`` names (an unreadable config adds nothing here; the
    command reports it)."""
    import yaml

    from trace_crs import results_layout as layout

    results = getattr(args, "results", None)
    if not results:
        return []
    out: list[Path] = []
    for name in named_runs(args):
        run = layout.run_dir(results, name)
        out.append(run)
        try:
            config = yaml.safe_load((run / layout.RUN_CONFIG).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(config, dict):
            out += [Path(config[k]) for k in ("kb", "dialogues") if isinstance(config.get(k), str) and config[k]]
    return out


def derived_outputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """``(what, path)`` of the files a command writes beside (or instead of) its output flags,
    named after them: ``score``'s Parquet tables, ``stats oracle``'s shares, ``dialogues
    generate``'s split lists and reports."""
    cmd, out = command_of(args), getattr(args, "out", None)
    if cmd == ("score", None):
        from trace_crs.results_layout import score_outputs

        pred = getattr(args, "predictions", None)
        base = Path(out) if out else Path(pred).with_name(Path(pred).stem + ".score.json") if pred else None
        if base is None:
            return []
        files = score_outputs(base)
        return [(f"the score's {kind} file", p) for kind, p in files.items() if not (out and kind == "json")]
    if not out:
        return []
    out = Path(out)
    if cmd == ("stats", "oracle"):
        return [("--out's shares table", out.with_suffix(".shares.csv"))]
    if cmd == ("dialogues", "generate"):
        from trace_crs.dialogues.generate import splits_dir

        return [
            ("--out's split lists", splits_dir(out)),
            ("--out's failures", out.with_suffix(".failures.jsonl")),
            ("--out's acceptance report", out.with_suffix(".acceptance.json")),
        ]
    return []
